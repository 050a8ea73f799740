// How to test your own environment against Rehearsal's Environment contract with the
// `rehearsal/testing` kit (a vitest suite; vitest is an optional peer dependency). FrozenLake stands
// in for "your environment". Run from a checkout: npx vitest run --root examples
import { createFrozenLakeEnvironment } from "rehearsal";
import { describeEnvironmentConformance } from "rehearsal/testing";

describeEnvironmentConformance({
  name: "my-frozenlake",
  create: async () => createFrozenLakeEnvironment({ slippery: false }),
  taskIds: ["4x4", "random-5-1"],
  seeds: [1, 2],
  chooseAction: (_observation, index) => ({ type: "move", direction: index % 2 === 0 ? "right" : "down" }),
  invalidActions: [{ type: "click", x: 1, y: 1 }],
});
