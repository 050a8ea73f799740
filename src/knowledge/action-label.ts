import type { Action } from "../core/action.ts";
import { canonicalJson } from "../core/hash.ts";

/** A short stable name for an action: the direction of a grid move, the UCI move, else canonical JSON. */
export function actionLabel(action: Action): string {
  if (action.type === "move") return action.direction;
  if (action.type === "uci") return action.move;
  return canonicalJson(action);
}
