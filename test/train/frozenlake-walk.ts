import type { Action, PolicyContext } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";

type Direction = "left" | "down" | "right" | "up";

/**
 * Real FrozenLake contexts: a walk on the still 4x4 map, each step with its history. `raw` is the
 * text each history entry records for its action (the action's JSON unless given); with `throughEnd`
 * the walk goes on after the episode ends (a context per direction, for gradient checks only).
 */
export async function frozenLakeWalk(
  directions: readonly Direction[],
  options: { raw?: (action: Action) => string; throughEnd?: boolean } = {},
): Promise<PolicyContext[]> {
  const raw = options.raw ?? ((action: Action) => JSON.stringify(action));
  const env = createFrozenLakeEnvironment({ slippery: false });
  const task = env.suite.get("4x4");
  let observation = await env.reset({ taskId: task.id, seed: 1 });
  const out: PolicyContext[] = [];
  const history: PolicyContext["history"][number][] = [];
  for (const direction of directions) {
    out.push({ task, observation, history: [...history], stepIndex: history.length });
    const action: Action = { type: "move", direction };
    const r = await env.step(action);
    history.push({ observation, action, raw: raw(action) });
    observation = r.observation;
    if (r.terminated && !options.throughEnd) break;
  }
  await env.close();
  return out;
}
