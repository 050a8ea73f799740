import type { RunStore } from "../src/store/index.ts";

/** The run every bench section records its episodes under. */
export const BENCH_RUN_ID = "run_bench";

/** Creates the bench run in `store` (nothing without a store); returns its id. */
export function createBenchRun(store: RunStore | undefined): string {
  store?.createRun({
    id: BENCH_RUN_ID,
    kind: "bench",
    seed: "bench",
    config: {},
    codeVersion: "bench",
    createdAtMs: 0,
  });
  return BENCH_RUN_ID;
}
