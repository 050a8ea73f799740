import type { Policy } from "../../core/index.ts";
import { createRandomPolicy } from "../../policies/random-policy.ts";

/**
 * A policy that, at each step, acts at random with probability `randomRate` (drawn from the step's
 * seeded stream) and otherwise asks `primary` (an oracle or heuristic). Recorded traces then hold
 * actions that do not always succeed next to the ones that solve the task.
 */
export function createMixedPolicy(primary: Policy, randomRate: number): Policy {
  const random = createRandomPolicy();
  if (randomRate <= 0) return primary;
  if (randomRate >= 1) return random;
  return {
    name: `${primary.name}+random(${randomRate})`,
    async propose(context, options) {
      const chosen = options.random.next() < randomRate ? random : primary;
      return chosen.propose(context, options);
    },
    async close() {
      await primary.close?.();
    },
  };
}
