import { afterAll, describe, expect, it } from "vitest";
import { createChessEnvironment, StockfishPool } from "../../src/envs/chess/index.ts";
import {
  createStatisticalWriter,
  memoryRecorder,
  runSklLoop,
  StateKnowledgeFieldsSchema,
} from "../../src/knowledge/index.ts";

describe("SKL loop on a second environment (chess puzzles)", () => {
  const pool = new StockfishPool({ depth: 2, size: 1 });
  const env = createChessEnvironment({ maxAgentMoves: 4, engine: { depth: 2 } }, { pool });
  afterAll(async () => {
    await env.close();
    await pool.close();
  });

  it("learns FEN-keyed knowledge through the generic API and records every episode", async () => {
    const tasks = env.suite.list().slice(0, 3);
    const recorder = memoryRecorder("chess-skl");
    const options = {
      method: "stateful-bootstrap" as const,
      env,
      trainTasks: tasks.slice(0, 2),
      testTasks: tasks.slice(2),
      iterations: 2,
      episodesPerMap: 1,
      evalEpisodesPerMap: 1,
      maxSteps: 4,
      writer: createStatisticalWriter({ deathPenalty: 1 }),
      budget: { n: 3, hMc: 4, hTd: 1, scope: "all" as const },
      temperature: 0.5,
      optimisticPrior: 0.5,
      bootstrapOn: "all" as const,
      generalKeys: [],
      seed: "chess",
      recorder,
    };
    const result = await runSklLoop(options);
    expect(result.iterations).toHaveLength(2);
    expect(result.iterations.every((it) => it.train.episodes === 2 && it.test.episodes === 1)).toBe(true);
    const keys = result.table.keys();
    expect(keys.length).toBeGreaterThan(0);
    // Keys are the chess observations' structural state keys (FENs), entries the statistical writer's.
    for (const key of keys) {
      expect(key.split(" ")).toHaveLength(6);
      const entry = result.table.read(key);
      expect(StateKnowledgeFieldsSchema.safeParse(entry?.fields).success).toBe(true);
      expect(
        Object.keys(StateKnowledgeFieldsSchema.parse(entry?.fields).actions).every((a) =>
          /^[a-h][1-8]/.test(a),
        ),
      ).toBe(true);
    }
    expect(result.iterations[0]?.writes).toBeGreaterThan(0);
    const trajectories = recorder.store.listTrajectories(recorder.runId);
    expect(trajectories).toHaveLength(2 * 3);
    expect(trajectories.every((t) => t.status === "complete")).toBe(true);
    const again = await runSklLoop({ ...options, recorder: memoryRecorder("chess-skl") });
    expect(JSON.stringify(again.iterations)).toBe(JSON.stringify(result.iterations));
  });
});
