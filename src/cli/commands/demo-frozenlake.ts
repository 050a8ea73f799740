import { runEpisodes } from "../../rollout/index.ts";
import { codeVersion } from "../code-version.ts";
import { resolveRunConfig } from "../config.ts";
import { createCliRuntime, openCliStore } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { formatPercent, type Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";

const DYNAMICS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["slippery", {}],
  ["non-slippery", { slippery: false }],
];

/**
 * The FrozenLake demo: 4x4 and 8x8, slippery and not, with the random and oracle policies, every step
 * recorded in the store, then a summary table.
 */
export async function runFrozenLakeDemo(
  o: Output,
  flags: { store: string; episodes: string; seed: string },
): Promise<void> {
  const store = openCliStore(flags.store);
  const rows: Array<Record<string, unknown>> = [];
  try {
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
        const runtime = createCliRuntime(config.seed);
        const env = await createEnvironmentFromConfig(config, runtime);
        try {
          const tasks = selectTasks(env.suite, config.tasks);
          const policy = await createPolicyFromConfig(config, runtime);
          const runId = runtime.ids.next("run");
          store.createRun({
            id: runId,
            kind: "run",
            seed: config.seed,
            config,
            codeVersion: codeVersion(),
            createdAtMs: runtime.clock.nowMs(),
          });
          for (const t of tasks) store.putTask(runId, t);
          const { summary } = await runEpisodes(
            { env, policy, runtime, store },
            { runId, tasks, episodes: config.episodes, seed: config.seed, temperature: 1 },
          );
          store.updateRun(runId, {
            status: "complete",
            summary: { ...summary },
            updatedAtMs: runtime.clock.nowMs(),
          });
          for (const t of summary.perTask) {
            rows.push({
              runId,
              dynamics,
              policy: policyName,
              task: t.taskId,
              episodes: t.episodes,
              successRate: t.successRate,
              meanSteps: t.meanSteps,
            });
          }
        } finally {
          await env.close();
        }
      }
    }
  } finally {
    store.close();
  }
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
  o.line(`recorded in ${flags.store}; inspect with 'rehearsal runs list --store ${flags.store}'`);
}
