import type { Environment } from "vitest/runtime";
import { builtinEnvironments } from "vitest/runtime";
import { closeWorkerScope, openWorkerScope } from "./worker-scope.ts";

/**
 * Vitest's `node` environment plus a worker scope (`test/worker-scope.ts`): set up once when a worker
 * starts, torn down when it stops, after its last test file. The fast project (`isolate: false`) uses
 * it so that helpers can keep expensive set-up (one Chromium) for the worker instead of per file.
 */
const workerEnvironment: Environment = {
  name: "rehearsal-worker",
  viteEnvironment: "ssr",
  async setup(global, options) {
    const node = await builtinEnvironments.node.setup(global, options);
    openWorkerScope();
    return {
      async teardown(g) {
        try {
          await closeWorkerScope();
        } finally {
          await node.teardown(g);
        }
      },
    };
  },
};

export default workerEnvironment;
