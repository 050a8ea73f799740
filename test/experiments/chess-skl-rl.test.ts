import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Chess } from "chess.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { createChessEnvironment, StockfishPool } from "../../src/envs/chess/index.ts";
import {
  runChessSklRl,
  type SklChessResult,
  SklDistillRecordSchema,
  SklTrajectoryRecordSchema,
} from "../../src/experiments/index.ts";
import {
  aggregateBranches,
  type Branch,
  describeSimulationKnowledge,
  SIMULATION_WRITER,
} from "../../src/knowledge/index.ts";
import { SKL_EXPERT_RATES } from "../../src/policies/chess-simulation-policy.ts";

const PUZZLES = ["LQZKc", "nhaRp", "0Ritn"];
const BASE = { puzzleIds: PUZZLES, engineDepth: 3, seed: 7, n: 3, h: 2 };

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

function jsonl(path: string): unknown[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as unknown);
}

/** Child processes of this test process whose command line mentions stockfish. */
function stockfishChildren(): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (ppid === process.pid && cmd.includes("stockfish")) found.push(Number(name));
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

describe("SKL-RL on chess puzzles", () => {
  const root = mkdtempSync(join(tmpdir(), "skl-rl-"));
  let first: SklChessResult;
  let second: SklChessResult;

  beforeAll(async () => {
    first = await runChessSklRl({ ...BASE, outDir: join(root, "a") });
    second = await runChessSklRl({ ...BASE, outDir: join(root, "b") });
  }, 300_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("runs for the three expert rates and reports win rates with a baseline", () => {
    expect(first.rates.map((r) => r.expertRate)).toEqual([...SKL_EXPERT_RATES]);
    for (const r of first.rates) {
      expect(r.skl.puzzles).toBe(PUZZLES.length);
      expect(r.skl.winRate).toBeCloseTo(r.skl.wins / PUZZLES.length, 6);
      expect(r.baseline?.puzzles).toBe(PUZZLES.length);
      expect(r.realSteps).toBeGreaterThan(0);
      expect(r.branches).toBeGreaterThanOrEqual(r.realSteps);
      expect(r.branches).toBeLessThanOrEqual(3 * r.realSteps);
    }
    const manifest = JSON.parse(readFileSync(first.manifest, "utf8"));
    expect(manifest.distillation.klDirection).toBe("forward");
    expect(manifest.rates.map((r: { skl: unknown }) => r.skl)).toEqual(first.rates.map((r) => r.skl));
  });

  it("writes valid JSONL, byte-identical for the same seed", () => {
    const a = files(join(root, "a"));
    const b = files(join(root, "b"));
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [name, text] of a) expect(b.get(name), name).toBe(text);
    for (const r of first.rates) {
      const trajectories = jsonl(r.files.trajectories).map((t) => SklTrajectoryRecordSchema.parse(t));
      expect(trajectories.map((t) => t.puzzleId)).toEqual(PUZZLES);
      for (const t of trajectories) {
        for (const s of t.steps) {
          expect(s.prompt[1]?.content).toContain(s.zHat.text);
          expect(JSON.parse(s.completion)).toEqual({ type: "uci", move: s.action });
          expect(s.simulations.length).toBeLessThanOrEqual(3);
          for (const branch of s.simulations) expect(branch.moves.length).toBeLessThanOrEqual(2);
        }
      }
      const pairs = jsonl(r.files.distill).map((p) => SklDistillRecordSchema.parse(p));
      expect(pairs.length).toBe(r.realSteps);
      for (const p of pairs) {
        expect(p.objective).toBe("forward");
        expect(p.zHat.version).toBe(p.z.version + 1);
      }
    }
  });

  it("never changes the real state by simulation: the trajectory equals a replay of its actions", async () => {
    const pool = new StockfishPool({ depth: 3 });
    const env = createChessEnvironment({ engine: { depth: 3 }, suite: { maxRating: 1000 } }, { pool });
    try {
      for (const r of first.rates) {
        for (const line of jsonl(r.files.trajectories)) {
          const t = SklTrajectoryRecordSchema.parse(line);
          await env.reset({ taskId: t.puzzleId, seed: t.seed });
          let reward = 0;
          for (const s of t.steps) {
            expect(s.fingerprintAfterSimulation).toBe(s.fingerprintBefore);
            expect(await env.fingerprint()).toBe(s.fingerprintBefore);
            const result = await env.step({ type: "uci", move: s.action });
            reward += result.reward;
            expect(await env.fingerprint()).toBe(s.fingerprintAfterStep);
          }
          expect(reward).toBe(t.reward);
        }
      }
    } finally {
      await env.close();
      await pool.close();
    }
  }, 20_000);

  it("writes z_hat to the knowledge table keyed by the FEN", () => {
    for (const r of first.rates) {
      const trajectories = jsonl(r.files.trajectories).map((t) => SklTrajectoryRecordSchema.parse(t));
      for (const s of trajectories.flatMap((t) => t.steps)) {
        expect(new Chess(s.stateKey).fen()).toBe(s.stateKey);
        const history = r.table.history(s.stateKey);
        const entry = history.find((e) => e.version === s.zHat.version);
        expect(entry?.writer).toBe(SIMULATION_WRITER);
        expect(entry?.text).toBe(s.zHat.text);
        expect(entry?.fields).toEqual(s.zHat.fields);
      }
      const stored = jsonl(r.files.knowledge) as Array<{ key: string }>;
      expect(new Set(stored.map((e) => e.key))).toEqual(new Set(r.table.keys()));
    }
  });

  it("leaves no Stockfish process behind", () => {
    expect(first.engine.started).toBeGreaterThan(0);
    for (const pid of [...first.engine.pids, ...second.engine.pids]) {
      expect(() => process.kill(pid, 0)).toThrow();
    }
    expect(stockfishChildren()).toEqual([]);
  });

  it("records the reverse-KL objective and rejects bad options", async () => {
    const result = await runChessSklRl({
      ...BASE,
      puzzleIds: ["nhaRp"],
      expertRates: [1 / 2],
      n: 2,
      h: 1,
      baseline: false,
      klDirection: "reverse",
      outDir: join(root, "reverse"),
    });
    const pairs = jsonl(result.rates[0]?.files.distill ?? "").map((p) => SklDistillRecordSchema.parse(p));
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.every((p) => p.objective === "reverse")).toBe(true);
    expect(JSON.parse(readFileSync(result.manifest, "utf8")).distillation.klDirection).toBe("reverse");
    expect(result.rates[0]?.baseline).toBeNull();
    await expect(runChessSklRl({ outDir: root, n: 0 })).rejects.toThrow(UserError);
    await expect(runChessSklRl({ outDir: root, puzzleIds: ["nope"] })).rejects.toThrow(UserError);
    expect(stockfishChildren()).toEqual([]);
  });
});

describe("z_hat aggregation", () => {
  const branch = (b: number, first: string, status: Branch["status"], ret: number): Branch => ({
    branch: b,
    moves: [first],
    replies: [],
    raws: [`random ${first}`],
    status,
    return: ret,
  });

  it("aggregates per first action, names a unique best and reports ties", () => {
    const f = aggregateBranches(
      undefined,
      [branch(0, "e2e4", "won", 1), branch(1, "d2d4", "lost", -1), branch(2, "e2e4", "running", 0)],
      { n: 3, h: 2 },
    );
    expect(f.actions.e2e4).toMatchObject({ n: 2, wins: 1, open: 1, meanReturn: 0.5 });
    expect(f.actions.d2d4).toMatchObject({ n: 1, losses: 1, meanReturn: -1 });
    expect(f.bestAction).toBe("e2e4");
    expect(describeSimulationKnowledge("FEN", f)).toContain("Best move by simulation: e2e4");
    const tie = aggregateBranches(
      undefined,
      [branch(0, "a2a3", "running", 0), branch(1, "b2b3", "running", 0)],
      {
        n: 2,
        h: 1,
      },
    );
    expect(tie.bestAction).toBeNull();
    expect(tie.tiedBest).toEqual(["a2a3", "b2b3"]);
  });

  it("adds this step's branches to a prior simulation entry", () => {
    const fields = aggregateBranches(undefined, [branch(0, "e2e4", "won", 1)], { n: 1, h: 1 });
    const prior = {
      key: "k",
      epoch: 0,
      version: 1,
      writer: SIMULATION_WRITER,
      fields,
      text: "",
      provenance: { episodeIds: [], continuationIds: [] },
    };
    const next = aggregateBranches(prior, [branch(0, "e2e4", "lost", -1)], { n: 1, h: 1 });
    expect(next.actions.e2e4).toMatchObject({ n: 2, wins: 1, losses: 1, meanReturn: 0 });
    expect(next.branches).toBe(2);
  });
});
