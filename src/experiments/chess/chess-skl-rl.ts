import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import { type ChessEnvironment, createChessEnvironment } from "../../envs/chess/chess-environment.ts";
import { StockfishPool } from "../../envs/chess/stockfish-pool.ts";
import { createChessSuite } from "../../envs/chess/suite.ts";
import { writeFileAtomic } from "../../export/output-file.ts";
import { SKL_DATASET_OPERATION, writeValidatedJsonl } from "../../export/skl-jsonl.ts";
import { KnowledgeEntrySchema } from "../../knowledge/knowledge-entry.ts";
import { createKnowledgeTable, type KnowledgeTable, tableEntries } from "../../knowledge/knowledge-table.ts";
import { type EpisodeRecorder, memoryRecorder, unlessStopped } from "../../knowledge/play-episode.ts";
import { round6 } from "../../knowledge/statistics.ts";
import { createMixedEnginePolicy } from "../../policies/chess-simulation-policy.ts";
import { runBaselineEpisode, runSklEpisode } from "./episode.ts";
import {
  parseSklChessOptions,
  rateLabel,
  type SklChessOptions,
  type SklChessOptionsInput,
} from "./options.ts";
import {
  type SklDistillRecord,
  SklDistillRecordSchema,
  type SklTrajectoryRecord,
  SklTrajectoryRecordSchema,
} from "./records.ts";

/** Wins over puzzles and the mean final reward of one set of episodes. */
export interface WinStats {
  puzzles: number;
  wins: number;
  winRate: number;
  meanReward: number;
}

export interface SklRateResult {
  expertRate: number;
  label: string;
  skl: WinStats;
  /** The acting policy alone (mixed engine policy at this rate), when `baseline` is on. */
  baseline: WinStats | null;
  /** Real steps and simulated branches of the SKL-RL run. */
  realSteps: number;
  branches: number;
  files: { trajectories: string; distill: string; knowledge: string };
  /** The knowledge table of this rate's run (z_hat entries keyed by FEN). */
  table: KnowledgeTable;
  /** Per puzzle: the SKL-RL and baseline final rewards. */
  perPuzzle: Array<{ puzzleId: string; sklReward: number; baselineReward: number | null }>;
}

export interface SklChessResult {
  options: SklChessOptions;
  puzzleIds: string[];
  rates: SklRateResult[];
  manifest: string;
  /** True when a stop request ended the run early: `rates` (and the files) hold the completed rates. */
  interrupted: boolean;
  /** Engine processes started, and their pids (all stopped when the run returns). */
  engine: { started: number; pids: number[] };
}

function stats(rewards: ReadonlyArray<number>): WinStats {
  const wins = rewards.filter((r) => r > 0).length;
  const total = rewards.reduce((a, b) => a + b, 0);
  const n = rewards.length;
  return {
    puzzles: n,
    wins,
    winRate: n === 0 ? 0 : round6(wins / n),
    meanReward: n === 0 ? 0 : round6(total / n),
  };
}

function choosePuzzles(o: SklChessOptions): string[] {
  const suite = createChessSuite({
    maxRating: o.maxRating,
    ...(o.csvPath !== undefined ? { csvPath: o.csvPath } : {}),
  });
  const known = suite.list().map((t) => t.id);
  if (o.puzzleIds === undefined) return known.slice(0, o.puzzleCount);
  for (const id of o.puzzleIds) {
    if (!known.includes(id)) {
      throw new UserError(
        "knowledge.unknown_puzzle",
        `SKL-RL: puzzle "${id}" is not in the suite rated < ${o.maxRating}; known: ${known.join(", ")}.`,
      );
    }
  }
  return [...o.puzzleIds];
}

/** What the caller provides: the run the real episodes are recorded in (default: an in-memory store). */
export interface SklChessDeps {
  recorder?: EpisodeRecorder;
}

/**
 * SKL-RL on chess puzzles, once per expert rate: localized simulation (N branches of H moves from each
 * real state, mixed engine policy at the rate), z_hat written to a knowledge table keyed by FEN, acting
 * from z_hat, and for comparison the acting policy alone. The real episodes (SKL-RL and baseline) go
 * through the shared episode loop and are recorded in the recorder's run; simulation branches stay in
 * memory. Writes per rate `trajectories.jsonl` (GRPO), `distill.jsonl` ((z, z_hat) pairs) and
 * `knowledge.jsonl`, plus `manifest.json`; every record is validated, every file replaced atomically.
 * Deterministic for a seed (Stockfish at a fixed depth, one thread). When the recorder's signal aborts,
 * the rate in flight is dropped and the manifest lists the completed ones (`interrupted: true`). One
 * engine pool serves all environments and is closed before returning (also on failure). Throws a
 * UserError on bad options.
 */
export async function runChessSklRl(
  input: SklChessOptionsInput,
  deps: SklChessDeps = {},
): Promise<SklChessResult> {
  const o = parseSklChessOptions(input);
  const puzzleIds = choosePuzzles(o);
  const recorder = deps.recorder ?? memoryRecorder(String(o.seed), "skl-chess");
  const pool = new StockfishPool({ depth: o.engineDepth, size: 1 });
  const config = {
    maxAgentMoves: o.maxAgentMoves,
    engine: { depth: o.engineDepth },
    suite: { maxRating: o.maxRating, ...(o.csvPath !== undefined ? { csvPath: o.csvPath } : {}) },
  };
  const envs: ChessEnvironment[] = [];
  const open = () => {
    const env = createChessEnvironment(config, { pool });
    envs.push(env);
    return env;
  };
  let pids: number[] = [];
  try {
    const real = open();
    const simulator = open();
    const baselineEnv = open();
    const rates: SklRateResult[] = [];
    let episodeIndex = 0;
    for (const expertRate of o.expertRates) {
      const rate = await unlessStopped(recorder, async (): Promise<SklRateResult> => {
        const label = rateLabel(expertRate);
        const dir = join(o.outDir, label);
        const table = createKnowledgeTable();
        const simulationPolicy = createMixedEnginePolicy({ expertRate, pool, name: `sim-${label}` });
        const actingPolicy = createMixedEnginePolicy({ expertRate, pool, name: `act-${label}` });
        const trajectories: SklTrajectoryRecord[] = [];
        const pairs: SklDistillRecord[] = [];
        const perPuzzle: SklRateResult["perPuzzle"] = [];
        for (const puzzleId of puzzleIds) {
          const shared = { actingPolicy, puzzleId, expertRate, seed: o.seed, recorder };
          const limits = { maxSteps: o.maxAgentMoves };
          const episode = await runSklEpisode({
            ...shared,
            ...limits,
            real,
            simulator,
            table,
            simulationPolicy,
            episodeIndex: episodeIndex++,
            n: o.n,
            h: o.h,
            klDirection: o.klDirection,
          });
          trajectories.push(episode.trajectory);
          pairs.push(...episode.pairs);
          const base = o.baseline
            ? await runBaselineEpisode({
                ...shared,
                ...limits,
                real: baselineEnv,
                episodeIndex: episodeIndex++,
              })
            : null;
          perPuzzle.push({
            puzzleId,
            sklReward: episode.trajectory.reward,
            baselineReward: base?.reward ?? null,
          });
        }
        const files = {
          trajectories: join(dir, "trajectories.jsonl"),
          distill: join(dir, "distill.jsonl"),
          knowledge: join(dir, "knowledge.jsonl"),
        };
        writeValidatedJsonl(files.trajectories, SklTrajectoryRecordSchema, trajectories);
        writeValidatedJsonl(files.distill, SklDistillRecordSchema, pairs);
        writeValidatedJsonl(files.knowledge, KnowledgeEntrySchema, tableEntries(table));
        return {
          expertRate,
          label,
          skl: stats(perPuzzle.map((p) => p.sklReward)),
          baseline: o.baseline ? stats(perPuzzle.map((p) => p.baselineReward ?? 0)) : null,
          realSteps: trajectories.reduce((a, t) => a + t.steps.length, 0),
          branches: trajectories.reduce(
            (a, t) => a + t.steps.reduce((b, s) => b + s.simulations.length, 0),
            0,
          ),
          files,
          table,
          perPuzzle,
        };
      });
      if (!rate) break;
      rates.push(rate);
    }
    const interrupted = rates.length < o.expertRates.length;
    const manifest = join(o.outDir, "manifest.json");
    const text = `${JSON.stringify(manifestOf(o, puzzleIds, rates, interrupted), null, 2)}\n`;
    writeFileAtomic(manifest, SKL_DATASET_OPERATION, text);
    pids = pool.pids();
    return {
      options: o,
      puzzleIds,
      rates,
      manifest,
      interrupted,
      engine: { started: pool.started, pids },
    };
  } finally {
    for (const env of envs) await env.close();
    await pool.close();
  }
}

function manifestOf(o: SklChessOptions, puzzleIds: string[], rates: SklRateResult[], interrupted: boolean) {
  return {
    kind: "skl-rl-chess-manifest",
    method: "SKL-RL with localized parallel simulation (seed 001)",
    environment: "chess-puzzles",
    options: { ...o, outDir: undefined },
    puzzleIds,
    distillation: {
      klDirection: o.klDirection,
      objective:
        o.klDirection === "forward"
          ? "KL[pi(z | simulations, s) || pi(z | s)]: teacher z_hat, student z (Supervised-KD style)"
          : "KL[pi(z | s) || pi(z | simulations, s)]: on-policy student z against teacher z_hat (OPSD style)",
    },
    grpo: "one line per episode; each real step has prompt (observation + z_hat), completion (action); reward R",
    rates: rates.map((r) => ({
      expertRate: r.expertRate,
      label: r.label,
      skl: r.skl,
      baseline: r.baseline,
      realSteps: r.realSteps,
      branches: r.branches,
      files: {
        trajectories: `${r.label}/trajectories.jsonl`,
        distill: `${r.label}/distill.jsonl`,
        knowledge: `${r.label}/knowledge.jsonl`,
      },
    })),
    ...(interrupted ? { interrupted: true } : {}),
  };
}
