import { type Action, createRuntime, createSequentialIds, type Policy } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import type { RunStore } from "../../src/store/index.ts";

/** Every other output does not parse: like a model that sometimes answers in prose. */
export const flakyPolicy: Policy = {
  name: "flaky",
  async propose(ctx, { n }) {
    const down: Action = { type: "move", direction: "down" };
    const ok = ctx.stepIndex % 2 === 0;
    return {
      candidates: Array.from({ length: n }, () =>
        ok
          ? { action: down, raw: '{"type":"move","direction":"down"}' }
          : {
              action: null,
              raw: "I think I should go down",
              parseError: { code: "parse.no_action", message: "no JSON object" },
            },
      ),
    };
  },
};

/** Records a FrozenLake run as `rehearsal run` does: the run, its tasks, then the episodes. */
export async function recordFrozenLakeRun(
  store: RunStore,
  args: { runId: string; taskIds: string[]; episodes: number; policy?: Policy; slippery?: boolean },
): Promise<void> {
  const env = createFrozenLakeEnvironment({ slippery: args.slippery ?? true });
  const tasks = args.taskIds.map((id) => env.suite.get(id));
  store.createRun({
    id: args.runId,
    kind: "run",
    seed: "s",
    config: {},
    codeVersion: "test",
    createdAtMs: 0,
  });
  for (const t of tasks) store.putTask(args.runId, t);
  const seq = createSequentialIds();
  const runtime = createRuntime({
    seed: args.runId,
    ids: { next: (prefix) => `${args.runId}_${seq.next(prefix)}` },
  });
  await runEpisodes(
    { env, policy: args.policy ?? createRandomPolicy(), runtime, store },
    { runId: args.runId, tasks, episodes: args.episodes, seed: "s", maxSteps: 12, temperature: 1 },
  );
}
