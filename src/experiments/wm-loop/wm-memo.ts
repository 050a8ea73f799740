import { canonicalJson } from "../../core/index.ts";
import type { WmPrediction, WorldModel } from "../../rl/world-model.ts";

/**
 * A world model that remembers its answers per (task, observation, action). Only for a model that
 * answers from those alone — the worldbook's (`worldbookWorldModel` reads the state from
 * `context.observation` and predicts the most likely step, no sampling) — never the snapshot one,
 * whose answer depends on the environment's hidden state. It keeps at most `limit` answers (then it
 * stops adding), so a long run's memory stays bounded. Every call is still a call: the policy's
 * transcript and counts do not change, only the seconds a repeated question costs.
 */
export function memoWorldModel(wm: WorldModel, limit = 200_000): WorldModel {
  const answers = new Map<string, WmPrediction>();
  return {
    name: wm.name,
    async predict(action, context) {
      const key = canonicalJson([context.task.id, context.observation, action]);
      const hit = answers.get(key);
      if (hit) return hit;
      const p = await wm.predict(action, context);
      if (answers.size < limit) answers.set(key, p);
      return p;
    },
  };
}
