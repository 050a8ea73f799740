import { afterEach, beforeEach, describe } from "vitest";
import type { RunStore } from "../store/index.ts";
import { describeArtefactsAndTrees } from "./store-conformance/artefacts-trees.ts";
import { describeIsolationAndClose } from "./store-conformance/isolation-close.ts";
import { describePages } from "./store-conformance/pages.ts";
import { describeRunsAndTasks } from "./store-conformance/runs-tasks.ts";
import { describeTrajectories } from "./store-conformance/trajectories.ts";

/**
 * The run store conformance suite. Every RunStore implementation runs it:
 *   describeStoreConformance("sqlite", () => openSqliteStore({ dir: freshTempDir() }))
 * The factory returns a fresh, empty store for each test; the suite closes it afterwards.
 */
export function describeStoreConformance(name: string, factory: () => RunStore): void {
  describe(`store conformance: ${name}`, () => {
    let store: RunStore;
    beforeEach(() => {
      store = factory();
    });
    afterEach(() => {
      store.close();
    });

    const current = () => store;
    describeRunsAndTasks(current);
    describeTrajectories(current);
    describeArtefactsAndTrees(current);
    describePages(current);
    describeIsolationAndClose(current);
  });
}
