import { type Action, type Policy, UserError } from "../core/index.ts";

/**
 * The environment's own solver for the task (FrozenLake: a shortest safe path on the non-slippery map;
 * web tasks: the page's oracle). When the solver has no move left it says `done`.
 */
export function createOraclePolicy(): Policy {
  return {
    name: "oracle",
    async propose(context, options) {
      if (!context.oracle) {
        throw new UserError(
          "policy.no_oracle",
          `task ${context.task.id} has no oracle solver; use another policy (random, heuristic, llm)`,
        );
      }
      const action: Action = (await context.oracle()) ?? { type: "done" };
      return {
        candidates: Array.from({ length: options.n }, () => ({ action, raw: JSON.stringify(action) })),
      };
    },
  };
}
