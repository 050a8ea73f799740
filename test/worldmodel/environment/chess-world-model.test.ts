import { describe, expect, it } from "vitest";
import type { Action, Observation } from "../../../src/core/index.ts";
import { createChessEnvironment } from "../../../src/envs/chess/index.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";
import {
  buildWorldbook,
  createWorldModelEnvironment,
  type Worldbook,
} from "../../../src/worldmodel/index.ts";
import { recordTraces } from "./fixtures.ts";

/** Cycles through the listed legal moves (as the chess conformance test does). */
function chooseAction(observation: Observation, index: number): Action {
  const legal = observation.legalActions ?? [];
  return legal[(index * 7) % Math.max(1, legal.length)] ?? { type: "uci", move: "a1a2" };
}

const TASKS = ["RQ5UP", "uE2a2", "LQZKc"];
let book: Promise<Worldbook> | undefined;

/** A worldbook from real chess-puzzle traces (solution opponent: deterministic), built once. */
function chessBook(): Promise<Worldbook> {
  book ??= (async () => {
    const env = createChessEnvironment({ opponent: "solution", offLineOpponent: "first-legal" });
    try {
      const steps = await recordTraces(env, {
        taskIds: TASKS,
        episodes: 3,
        maxSteps: 6,
        choose: (o, i) => chooseAction(o, i),
      });
      return buildWorldbook(steps, {}, { tasks: TASKS.map((id) => env.suite.get(id)) });
    } finally {
      await env.close();
    }
  })();
  return book;
}

describeEnvironmentConformance({
  name: "worldmodel (chess puzzles)",
  create: async () => createWorldModelEnvironment({ book: await chessBook() }),
  taskIds: ["RQ5UP", "uE2a2", "LQZKc"],
  seeds: [1, 2],
  chooseAction,
  invalidActions: [{ type: "uci", move: "e2e5x" } as unknown as Action, { type: "done" }],
  steps: 6,
  timeoutMs: 120_000,
});

describe("world-model environment on chess traces", () => {
  it("replays a recorded move sequence with the rules it learnt", async () => {
    const env = await createWorldModelEnvironment({ book: await chessBook() });
    let observation = await env.reset({ taskId: "RQ5UP", seed: 1 });
    expect(env.family).toBe("chess");
    const r = await env.step(chooseAction(observation, 0));
    observation = r.observation;
    expect(observation.error).toBeUndefined();
    expect((r.info.worldmodel as { fired: string[] }).fired.length).toBeGreaterThan(0);
    await env.close();
  }, 120_000);
});
