import type { GridDirection } from "../../core/index.ts";
import {
  DIRECTIONS,
  type FrozenLakeConfigInput,
  frozenLakeStateViewer,
  mapOfTask,
  parseFrozenLakeConfig,
  transitionProbabilities,
} from "../../envs/frozenlake/index.ts";
import type { TrueDistributionHook } from "./fidelity.ts";

/**
 * FrozenLake's true next-state distribution under `config`'s slip model, for the sampling-noise floor:
 * the exact cell probabilities of the environment's dynamics, each next state made by rendering the
 * moved player and viewing the result (so it has the fields a real observation gives). Undefined for
 * steps it cannot judge: no task, a truncated step (the horizon, not the slip, decides it), an action
 * that is not a move.
 */
export function frozenLakeTrueDistribution(config: FrozenLakeConfigInput = {}): TrueDistributionHook {
  const { dynamics } = parseFrozenLakeConfig(config);
  return ({ step, task, before }) => {
    const direction = (step.action as { direction?: unknown }).direction;
    const row = before["agent.row"];
    const col = before["agent.col"];
    if (task === undefined || step.truncated || step.action.type !== "move") return undefined;
    if (!DIRECTIONS.includes(direction as GridDirection)) return undefined;
    if (typeof row !== "number" || typeof col !== "number") return undefined;
    const map = mapOfTask(task);
    return transitionProbabilities(map, { row, col }, direction as GridDirection, dynamics).map((cell) => {
      const moved = { ...before, "agent.row": cell.row, "agent.col": cell.col, status: "running" };
      const observation = frozenLakeStateViewer.render(moved, step.observation, task);
      return { state: frozenLakeStateViewer.view(observation, task), probability: cell.probability };
    });
  };
}
