import { Chess } from "chess.js";
import { afterAll, describe, expect, it } from "vitest";
import { createRandom, type PolicyContext, UserError } from "../../../src/core/index.ts";
import { createChessEnvironment, StockfishPool } from "../../../src/envs/chess/index.ts";
import { createMixedEnginePolicy, SKL_EXPERT_RATES } from "../../../src/policies/chess-simulation-policy.ts";

describe("mixed engine simulation policy", () => {
  const pool = new StockfishPool({ depth: 4 });
  const env = createChessEnvironment({ opponent: "first-legal" });
  afterAll(async () => {
    await env.close();
    await pool.close();
  });

  async function contextFor(taskId: string): Promise<PolicyContext> {
    const observation = await env.reset({ taskId, seed: 0 });
    return { task: env.suite.get(taskId), observation, history: [], stepIndex: 0 };
  }

  it("expert rate 1 plays the engine's move, 0 plays random legal moves", async () => {
    const context = await contextFor("mWN6L");
    // All legal moves (the observation lists only the first 30).
    const legal = new Chess(context.observation.data?.fen as string)
      .moves({ verbose: true })
      .map((m) => m.lan);
    expect(legal.length).toBeGreaterThan(30);
    const best = await pool.bestMove(context.observation.data?.fen as string);
    const expert = createMixedEnginePolicy({ expertRate: 1, pool });
    const e = await expert.propose(context, { n: 3, temperature: 1, random: createRandom("t", 1) });
    expect(e.candidates.map((c) => c.action)).toEqual(Array(3).fill({ type: "uci", move: best }));
    expect(e.candidates[0]?.raw).toBe(`engine ${best}`);
    const random = createMixedEnginePolicy({ expertRate: 0, pool });
    const r = await random.propose(context, { n: 20, temperature: 1, random: createRandom("t", 2) });
    for (const c of r.candidates) expect(legal).toContain(c.action?.type === "uci" ? c.action.move : "");
    expect(new Set(r.candidates.map((c) => JSON.stringify(c.action))).size).toBeGreaterThan(3);
  });

  it("mixes at the SKL rates, reproducibly from the seed", async () => {
    const context = await contextFor("LQZKc");
    for (const rate of SKL_EXPERT_RATES) {
      const policy = createMixedEnginePolicy({ expertRate: rate, pool });
      const a = await policy.propose(context, { n: 300, temperature: 1, random: createRandom("mix", rate) });
      const b = await policy.propose(context, { n: 300, temperature: 1, random: createRandom("mix", rate) });
      expect(b).toEqual(a);
      const share = a.candidates.filter((c) => c.raw.startsWith("engine")).length / 300;
      expect(Math.abs(share - rate)).toBeLessThan(0.1);
    }
  });

  it("rejects an expert rate outside [0, 1]", () => {
    expect(() => createMixedEnginePolicy({ expertRate: 1.5, pool })).toThrow(UserError);
  });
});
