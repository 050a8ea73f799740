import { afterAll, describe, expect, it } from "vitest";
import { EnvironmentError } from "../../../src/core/index.ts";
import { StockfishPool, StockfishProcess } from "../../../src/envs/chess/index.ts";

/** White mates in one with Ra8#. */
const BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";

const MIDDLEGAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitGone(pids: number[], ms = 3_000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (pids.every((p) => !isRunning(p))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return pids.every((p) => !isRunning(p));
}

describe("Stockfish over UCI", () => {
  const pools: StockfishPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it("finds the mate in one and answers null when there is no move", async () => {
    const engine = await StockfishProcess.start();
    try {
      expect(await engine.bestMove(BACK_RANK, [], { depth: 6 })).toBe("a1a8");
      // After Ra8# Black is mated: the engine reports `bestmove (none)`.
      expect(await engine.bestMove(BACK_RANK, ["a1a8"], { depth: 4 })).toBeNull();
    } finally {
      await engine.close();
    }
    expect(engine.alive).toBe(false);
  });

  it("a search past its timeout is a typed EnvironmentError and the engine is killed", async () => {
    const engine = await StockfishProcess.start();
    const pid = engine.pid as number;
    const err = await engine
      .bestMove(MIDDLEGAME, [], {
        depth: 60,
        timeoutMs: 100,
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvironmentError);
    expect((err as EnvironmentError).code).toBe("chess.engine_timeout");
    expect(engine.alive).toBe(false);
    expect(await waitGone([pid])).toBe(true);
    await engine.close();
  });

  it("a request whose engine dies mid-search is retried on a fresh engine", async () => {
    const pool = new StockfishPool({ size: 1 });
    pools.push(pool);
    expect(await pool.bestMove(BACK_RANK)).toBe("a1a8");
    const [pid] = pool.pids();
    const pending = pool.bestMove(MIDDLEGAME, [], { movetimeMs: 1_000 });
    await new Promise((r) => setTimeout(r, 150));
    process.kill(pid as number, "SIGKILL");
    expect(await pending).toMatch(/^[a-h][1-8][a-h][1-8]$/);
    expect(pool.started).toBe(2);
    expect(pool.pids()).not.toContain(pid);
    await pool.close();
  });

  it("the pool replaces a killed engine, answers deterministically and leaks no process", async () => {
    const pool = new StockfishPool({ size: 2, depth: 8 });
    pools.push(pool);
    const fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    const [a, b] = await Promise.all([pool.bestMove(fen), pool.bestMove(fen)]);
    expect(a).toBe("h5f7");
    expect(b).toBe(a);
    const before = pool.pids();
    expect(before).toHaveLength(2);
    for (const pid of before) process.kill(pid, "SIGKILL");
    expect(await waitGone(before)).toBe(true);
    expect(await pool.bestMove(BACK_RANK)).toBe("a1a8");
    expect(pool.started).toBeGreaterThanOrEqual(3);
    const live = pool.pids();
    expect(live.length).toBeGreaterThan(0);
    expect(live.some((p) => before.includes(p))).toBe(false);
    await pool.close();
    await pool.close();
    expect(await waitGone(live)).toBe(true);
    expect(pool.pids()).toEqual([]);
    await expect(pool.bestMove(BACK_RANK)).rejects.toBeInstanceOf(EnvironmentError);
  });
});
