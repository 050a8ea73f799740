import type { Action, Observation } from "../../../src/core/index.ts";
import { createWebEnvironment } from "../../../src/envs/web/index.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";

const SCRIPT: Action[] = [
  { type: "click", x: 60, y: 20 },
  { type: "key", keys: "Tab" },
  { type: "type", text: "hello" },
  { type: "key", keys: "shift+Tab" },
];

describeEnvironmentConformance({
  name: "web",
  create: () => createWebEnvironment({}),
  taskIds: ["enter-text", "click-button"],
  seeds: [1, 2],
  chooseAction: (_o: Observation, i: number) => SCRIPT[i % SCRIPT.length] as Action,
  invalidActions: [
    { type: "click", elementId: "99999" },
    { type: "click", x: 5000, y: 10 },
    { type: "select", elementId: "1", value: "x" },
    { type: "move", direction: "left" },
    { type: "uci", move: "e2e4" },
    { type: "key", keys: "NoSuchKey" },
  ],
  steps: 4,
  timeoutMs: 90_000,
});
