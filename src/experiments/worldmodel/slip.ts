import type { GridDirection } from "../../core/index.ts";
import { turnLeft, turnRight } from "../../envs/frozenlake/index.ts";
import type { Rule, Worldbook } from "../../worldmodel/index.ts";

/** Probabilities of moving in the intended direction and to its left and right (as seen facing it). */
export interface SlipProbabilities {
  intended: number;
  left: number;
  right: number;
}

export interface SlipRecovery {
  /** Per move direction: the worldbook rule's outcome distribution folded into intended/left/right. */
  perDirection: Array<{ direction: string; support: number } & SlipProbabilities>;
  /** All move rules together, weighted by their support. */
  pooled: SlipProbabilities;
  /** The environment's true slip model. */
  truth: SlipProbabilities;
  /** Largest |recovered − truth| over intended/left/right of the pooled estimate. */
  maxError: number;
}

const VECTORS: Record<GridDirection, readonly [number, number]> = {
  up: [-1, 0],
  down: [1, 0],
  left: [0, -1],
  right: [0, 1],
};

/** The displacement an outcome's effects give the agent (row, col), ignoring the other effects. */
function displacement(effects: Rule["outcomes"][number]["effects"]): [number, number] {
  const d = { "agent.row": 0, "agent.col": 0 };
  for (const e of effects) {
    if ((e.path !== "agent.row" && e.path !== "agent.col") || typeof e.value !== "number") continue;
    if (e.op === "increment") d[e.path] += e.value;
    if (e.op === "decrement") d[e.path] -= e.value;
  }
  return [d["agent.row"], d["agent.col"]];
}

/** Which way an outcome moved relative to the intended `direction`. */
function relative(d: [number, number], direction: GridDirection): keyof SlipProbabilities | undefined {
  const sides = [
    ["intended", direction],
    ["left", turnLeft(direction)],
    ["right", turnRight(direction)],
  ] as const;
  return sides.find(([, dir]) => VECTORS[dir][0] === d[0] && VECTORS[dir][1] === d[1])?.[0];
}

/**
 * The slip probabilities a FrozenLake worldbook recovered: each move rule's outcomes (the effect sets it
 * saw, with their probabilities) are folded by where they moved the agent relative to the intended
 * direction; hole and goal outcomes count with the move that led there.
 */
export function recoverSlip(worldbook: Worldbook, truth: SlipProbabilities): SlipRecovery {
  const perDirection: SlipRecovery["perDirection"] = [];
  for (const rule of worldbook.rules) {
    const direction = String(rule.action.direction) as GridDirection;
    if (rule.action.type !== "move" || !(direction in VECTORS)) continue;
    const p: SlipProbabilities = { intended: 0, left: 0, right: 0 };
    for (const outcome of rule.outcomes) {
      const side = relative(displacement(outcome.effects), direction);
      if (side) p[side] += outcome.probability;
    }
    perDirection.push({ direction, support: rule.support, ...p });
  }
  perDirection.sort((a, b) => (a.direction < b.direction ? -1 : 1));
  const total = perDirection.reduce((s, d) => s + d.support, 0);
  const pool = (k: keyof SlipProbabilities) =>
    total === 0 ? 0 : perDirection.reduce((s, d) => s + d[k] * d.support, 0) / total;
  const pooled = { intended: pool("intended"), left: pool("left"), right: pool("right") };
  const maxError = Math.max(
    ...(["intended", "left", "right"] as const).map((k) => Math.abs(pooled[k] - truth[k])),
  );
  return { perDirection, pooled, truth, maxError };
}
