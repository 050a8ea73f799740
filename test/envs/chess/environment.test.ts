import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { type Action, createRandom, UserError } from "../../../src/core/index.ts";
import { createChessEnvironment, createChessSuite, PuzzleSchema } from "../../../src/envs/chess/index.ts";

const suite = createChessSuite();
const puzzles = suite.list().map((t) => suite.puzzle(t.id));
/** `ps` lines of this process's children ("" when there are none: ps then exits 1). */
function childProcesses(): string {
  try {
    return execFileSync("ps", ["--ppid", String(process.pid), "-o", "pid=,args="], { encoding: "utf8" });
  } catch {
    return "";
  }
}

const uci = (move: string): Action => ({ type: "uci", move });

/** Plays the listed solver moves; returns the last step's reward and end flags. */
async function playSolution(env: ReturnType<typeof createChessEnvironment>, id: string) {
  await env.reset({ taskId: id, seed: 0 });
  const moves = suite.puzzle(id).moves;
  let last = { reward: 0, terminated: false, truncated: false };
  for (let i = 1; i < moves.length; i += 2) {
    last = await env.step(uci(moves[i] as string));
    if (last.terminated || last.truncated) break;
  }
  return last;
}

describe("chess puzzle environment", () => {
  const env = createChessEnvironment({ opponent: "solution", offLineOpponent: "first-legal" });
  afterAll(async () => {
    await env.close();
  });

  it("reset plays the setup move: the agent moves next, the observation shows the board", async () => {
    const p = suite.puzzle("RQ5UP");
    const obs = await env.reset({ taskId: p.id, seed: 0 });
    expect(obs.stateKey).toBe(obs.data?.fen);
    expect(obs.data?.fen).toBe("8/8/8/6p1/1PK5/8/7k/8 w - - 1 61");
    expect(obs.data?.moveNumber).toBe(61);
    expect(obs.text).toContain("You play White");
    expect(obs.text).toContain("Side to move: White (you)");
    expect(obs.text).toContain("h3h2 (setup)");
    expect(obs.legalActions).toContainEqual(uci("b4b5"));
    expect(obs.error).toBeUndefined();
  });

  it("legal moves are listed up to 30 and the text says so", async () => {
    let obs = await env.reset({ taskId: "RQ5UP", seed: 0 });
    for (const p of puzzles) {
      obs = await env.reset({ taskId: p.id, seed: 0 });
      if ((obs.data?.legalMoveCount as number) > 30) break;
    }
    expect(obs.legalActions).toHaveLength(30);
    expect(obs.data?.legalMoveCount as number).toBeGreaterThan(30);
    expect(obs.text).toMatch(/Legal moves \(\d+, first 30 shown\)/);
  });

  it("the listed solution wins (+1) on every fixture puzzle", async () => {
    expect(puzzles.length).toBeGreaterThanOrEqual(10);
    for (const p of puzzles) {
      const r = await playSolution(env, p.id);
      expect(r, p.id).toMatchObject({ reward: 1, terminated: true, truncated: false });
      expect((await env.evaluate()).success).toBe(true);
    }
  });

  it("the oracle solves every fixture puzzle", async () => {
    for (const p of puzzles) {
      await env.reset({ taskId: p.id, seed: 0 });
      let reward = 0;
      for (let i = 0; i < 10; i++) {
        const action = await env.oracleAction();
        if (!action) break;
        const r = await env.step(action);
        reward = r.reward;
        if (r.terminated || r.truncated) break;
      }
      expect(reward, p.id).toBe(1);
      expect(await env.oracleAction()).toBeNull();
    }
  });

  it("a random agent mostly does not win", async () => {
    let wins = 0;
    for (const p of puzzles) {
      const random = createRandom("test-random-agent", p.id);
      let obs = await env.reset({ taskId: p.id, seed: 1 });
      for (let i = 0; i < 10; i++) {
        const r = await env.step(random.pick(obs.legalActions ?? []));
        obs = r.observation;
        if (r.terminated || r.truncated) {
          if (r.reward === 1) wins++;
          break;
        }
      }
    }
    expect(wins).toBeLessThan(puzzles.length / 3);
  });

  it("illegal and non-uci actions are error observations that count toward the limit of 10", async () => {
    const start = await env.reset({ taskId: "RQ5UP", seed: 0 });
    const illegal = await env.step(uci("a1a8"));
    expect(illegal.observation.error?.code).toBe("illegal_move");
    expect(illegal.observation.data?.fen).toBe(start.data?.fen);
    expect(illegal.reward).toBe(0);
    const invalid = await env.step({ type: "click", x: 1, y: 1 });
    expect(invalid.observation.error?.code).toBe("invalid_action");
    expect(invalid.observation.data?.agentMoves).toBe(2);
    let last = invalid;
    for (let i = 2; i < 10; i++) {
      expect(last.truncated).toBe(false);
      last = await env.step(uci("a1a8"));
    }
    expect(last).toMatchObject({ reward: 0, terminated: false, truncated: true });
    expect((await env.evaluate()).reason).toContain("10 agent moves");
    const after = await env.step(uci("b4b5"));
    expect(after.observation.error?.code).toBe("episode_ended");
  });

  it("ten legal moves off the line end truncated with reward 0", async () => {
    const shuffle = createChessEnvironment({ opponent: "first-legal" });
    let obs = await shuffle.reset({ taskId: "uE2a2", seed: 0 });
    let r = { reward: 0, terminated: false, truncated: false };
    let steps = 0;
    while (!r.terminated && !r.truncated) {
      const moves = (obs.legalActions ?? []).map((a) => (a.type === "uci" ? a.move : ""));
      // Shuffle the rook along the 7th rank without ever giving mate.
      const pick =
        moves.find((m) => m.startsWith("a7") && m !== "a7f7") ?? moves.find((m) => !m.startsWith("a7"));
      const step = await shuffle.step(uci(pick as string));
      obs = step.observation;
      r = step;
      steps++;
    }
    expect(steps).toBeLessThanOrEqual(10);
    if (r.truncated) expect(steps).toBe(10);
    expect(r.reward).toBeLessThan(1);
    await shuffle.close();
  });

  it("getting mated is -1 (Stockfish opponent after the agent leaves the line)", async () => {
    const trap = PuzzleSchema.parse({
      id: "trap",
      fen: "6k1/5ppp/8/8/7N/8/r4PPP/6K1 b - - 0 1",
      moves: ["g8h8", "h2h3"],
      rating: 500,
    });
    const mated = createChessEnvironment(
      { opponent: "solution", offLineOpponent: "stockfish", engine: { depth: 4 } },
      { suite: createChessSuite({}, [trap]) },
    );
    await mated.reset({ taskId: "trap", seed: 0 });
    const r = await mated.step(uci("h4f5"));
    expect(r.info.opponentMove).toBe("a2a1");
    expect(r).toMatchObject({ reward: -1, terminated: true, truncated: false });
    expect(await mated.evaluate()).toMatchObject({ reward: -1, success: false });
    await mated.close();
    // The environment's own engine pool is gone with it: no Stockfish child of this process is left.
    expect(childProcesses()).not.toContain("stockfish");
  });

  it("snapshot round-trips through JSON, random opponent state included", async () => {
    const renv = createChessEnvironment({ opponent: "random" });
    let obs = await renv.reset({ taskId: "LQZKc", seed: 3 });
    obs = (await renv.step(obs.legalActions?.[5] as Action)).observation;
    const snap = JSON.parse(JSON.stringify(await renv.snapshot()));
    const print = await renv.fingerprint();
    const next = await renv.step(obs.legalActions?.[2] as Action);
    await renv.reset({ taskId: "RQ5UP", seed: 9 });
    const restored = await renv.restore(snap);
    expect(restored).toEqual(obs);
    expect(await renv.fingerprint()).toBe(print);
    expect(await renv.step(obs.legalActions?.[2] as Action)).toEqual(next);
    await expect(
      renv.restore({ ...snap, state: { ...snap.state, fen: "8/8/8/8/8/8/8/K6k w - - 0 1" } }),
    ).rejects.toBeInstanceOf(UserError);
    await renv.close();
  });
});
