import { executeRun, resolveRunConfig } from "../../runner/index.ts";
import { type CliContext, warnIfInterrupted, withRunner } from "../context.ts";
import { formatPercent, type Output } from "../output.ts";

const DYNAMICS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["slippery", {}],
  ["non-slippery", { slippery: false }],
];

/**
 * The FrozenLake demo: 4x4 and 8x8, slippery and not, with the random and oracle policies, every step
 * recorded in the store, then a summary table. A signal stops it after the run in progress.
 */
export async function runFrozenLakeDemo(
  ctx: CliContext,
  flags: { store: string; episodes: string; seed: string },
): Promise<void> {
  const o = ctx.out();
  const rows: Array<Record<string, unknown>> = [];
  await withRunner(ctx, flags.store, flags.seed, async (deps) => {
    for (const [dynamics, envOptions] of DYNAMICS) {
      for (const policyName of ["random", "oracle"] as const) {
        const config = resolveRunConfig(
          {},
          {
            env: "frozenlake",
            envOptions,
            tasks: ["4x4", "8x8"],
            policy: policyName,
            episodes: Number(flags.episodes),
            seed: flags.seed,
            store: flags.store,
          },
          "demo",
        );
        const run = await executeRun(deps, { config, storeDir: flags.store });
        for (const t of run.summary.perTask) {
          const { episodes, successRate, meanSteps } = t;
          rows.push({
            runId: run.runId,
            dynamics,
            policy: policyName,
            task: t.taskId,
            episodes,
            successRate,
            meanSteps,
          });
        }
        warnIfInterrupted(o, { status: run.status, kind: "run", id: run.runId }, flags.store);
        if (run.status === "interrupted") return;
      }
    }
  });
  printDemo(o, rows, flags.store);
}

function printDemo(o: Output, rows: Array<Record<string, unknown>>, store: string): void {
  o.result({ demo: "frozenlake", rows });
  o.line(
    "Rehearsal demo — FrozenLake, horizon 20 (slippery: intended move 1/3, each perpendicular slip 1/3)",
  );
  o.table(
    ["run", "dynamics", "policy", "map", "episodes", "success rate", "mean length"],
    rows.map((r) => [
      String(r.runId),
      String(r.dynamics),
      String(r.policy),
      String(r.task),
      Number(r.episodes),
      formatPercent(Number(r.successRate)),
      Number(r.meanSteps).toFixed(2),
    ]),
  );
  o.line(`recorded in ${store}; inspect with 'rehearsal runs list --store ${store}'`);
}
