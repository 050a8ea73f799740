import type { GridDirection } from "../../src/core/index.ts";
import type { BufferedEpisode, TransitionInput } from "../../src/knowledge/index.ts";

/** A transition from `state` to `next` by moving `direction`. */
export function step(
  state: string,
  direction: GridDirection,
  next: string,
  extra: Partial<TransitionInput> = {},
): TransitionInput {
  return {
    state,
    action: { type: "move", direction },
    actionLabel: direction,
    reward: 0,
    terminal: false,
    truncated: false,
    nextState: next,
    ...extra,
  };
}

export function episode(
  id: string,
  epoch: number,
  transitions: TransitionInput[],
  taskId = "map",
): BufferedEpisode {
  return { id, taskId, epoch, transitions };
}
