// The dashboard on a large store: a SQLite store with 100,000 steps (one trajectory of 60,000 steps and
// 400 of 100) and a 6,000-node search tree, served by `rehearsal ui`'s server on 127.0.0.1; reported:
// the time to build the store and the median time over the wire of each page (20 fetches each).
// Run by bench/run.ts (`npm run bench -- ui`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startUiServer } from "../src/ui/ui-server.ts";
import { LARGE_STORE, writeLargeStore } from "../test/ui/large-store-helpers.ts";

export async function benchUi(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-bench-ui-"));
  try {
    const t0 = performance.now();
    writeLargeStore(dir, 6000);
    const buildMs = performance.now() - t0;
    const server = await startUiServer({ storeDir: dir, port: 0 });
    const pages: Record<string, string> = {
      runs: "/",
      run: "/runs/r1",
      task_last_page: "/runs/r1/tasks/task?page=8",
      trajectory_last_step: "/trajectories/t-long?step=59999",
      tree: "/trees/big",
      leaf_path: "/trees/big/nodes/n5999",
    };
    const out: Record<string, number> = {
      store_steps: LARGE_STORE.steps,
      store_build_ms: Math.round(buildMs),
    };
    try {
      for (const [name, path] of Object.entries(pages)) {
        const times: number[] = [];
        for (let i = 0; i < 20; i++) {
          const start = performance.now();
          const r = await fetch(server.url + path);
          await r.text();
          if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status}`);
          times.push(performance.now() - start);
        }
        times.sort((a, b) => a - b);
        out[`${name}_p50_ms`] = Math.round((times[10] ?? 0) * 10) / 10;
      }
    } finally {
      await server.close();
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
