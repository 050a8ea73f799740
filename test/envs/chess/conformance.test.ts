import type { Action, Observation } from "../../../src/core/index.ts";
import { createChessEnvironment } from "../../../src/envs/chess/index.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";

/** Cycles through the listed legal moves so that episodes leave the solution line. */
function chooseAction(observation: Observation, index: number): Action {
  const legal = observation.legalActions ?? [];
  return legal[(index * 7) % Math.max(1, legal.length)] ?? { type: "uci", move: "a1a2" };
}

for (const opponent of ["solution", "random"] as const) {
  describeEnvironmentConformance({
    name: `chess (opponent ${opponent})`,
    create: async () => createChessEnvironment({ opponent, offLineOpponent: "first-legal" }),
    taskIds: ["RQ5UP", "uE2a2", "LQZKc"],
    seeds: [1, 2],
    chooseAction,
    invalidActions: [
      { type: "click", x: 1, y: 1 },
      { type: "move", direction: "up" },
      { type: "uci", move: "a1a1" },
      { type: "uci", move: "e2e5x" } as unknown as Action,
      { type: "done" },
    ],
    steps: 6,
  });
}

// Stockfish at a fixed depth with one thread is deterministic: the same suite holds with it as opponent.
describeEnvironmentConformance({
  name: "chess (opponent stockfish, depth 3)",
  create: async () => createChessEnvironment({ opponent: "stockfish", engine: { depth: 3 } }),
  taskIds: ["RQ5UP", "uE2a2"],
  seeds: [1, 2],
  chooseAction,
  invalidActions: [{ type: "done" }],
  steps: 3,
});
