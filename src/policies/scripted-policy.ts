import { type Action, ActionSchema, type Policy, UserError } from "../core/index.ts";

/**
 * Plays a fixed list of actions in order (step i plays actions[i]); after the list it says `done`.
 * Every candidate of a call is the same action.
 */
export function createScriptedPolicy(actions: ReadonlyArray<Action>): Policy {
  const checked = actions.map((a, i) => {
    const r = ActionSchema.safeParse(a);
    if (!r.success) {
      throw new UserError(
        "policy.scripted_invalid_action",
        `scripted action #${i} is not a valid action: ${r.error.issues[0]?.message ?? "invalid"}; fix the action list`,
      );
    }
    return r.data;
  });
  return {
    name: "scripted",
    async propose(context, options) {
      const action: Action = checked[context.stepIndex] ?? { type: "done" };
      return {
        candidates: Array.from({ length: options.n }, () => ({ action, raw: JSON.stringify(action) })),
      };
    },
  };
}
