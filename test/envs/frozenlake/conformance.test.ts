import type { Action, GridDirection } from "../../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../../src/envs/frozenlake/index.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";

const PATTERN: GridDirection[] = ["right", "down", "right", "down", "left", "up"];

for (const slippery of [true, false]) {
  describeEnvironmentConformance({
    name: `frozenlake (${slippery ? "slippery" : "non-slippery"})`,
    create: async () => createFrozenLakeEnvironment({ slippery, suite: { randomMaps: { count: 4 } } }),
    taskIds: ["8x8", "random-5-0", "4x4"],
    seeds: [1, 2],
    chooseAction: (_observation, index): Action => ({
      type: "move",
      direction: PATTERN[index % PATTERN.length] as GridDirection,
    }),
    invalidActions: [
      { type: "click", x: 1, y: 1 },
      { type: "uci", move: "e2e4" },
      { type: "done" },
      { type: "move", direction: "north" } as unknown as Action,
    ],
    steps: 6,
  });
}
