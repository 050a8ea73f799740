import type { Action } from "../../core/action.ts";
import { EnvironmentError } from "../../core/errors.ts";
import type { Observation } from "../../core/observation.ts";
import type { Policy } from "../../core/policy.ts";
import { createRandom } from "../../core/random.ts";
import type { ChessEnvironment } from "../../envs/chess/chess-environment.ts";
import type { KnowledgeTable } from "../../knowledge/knowledge-table.ts";
import {
  aggregateBranches,
  describeSimulationKnowledge,
  EMPTY_KNOWLEDGE_TEXT,
  SIMULATION_WRITER,
} from "../../knowledge/simulation-knowledge.ts";
import { actingMove, chooseMove } from "./choose.ts";
import type { KnowledgeSnapshot, SklDistillRecord, SklStep, SklTrajectoryRecord } from "./records.ts";
import { simulateBranches } from "./simulate.ts";

export interface SklEpisodeContext {
  real: ChessEnvironment;
  simulator: ChessEnvironment;
  table: KnowledgeTable;
  /** The simulation policy (mixed engine policy at the expert rate). */
  simulationPolicy: Policy;
  /** Chooses when z_hat has no unique best move. */
  actingPolicy: Policy;
  puzzleId: string;
  expertRate: number;
  seed: number;
  n: number;
  h: number;
  klDirection: "forward" | "reverse";
}

export interface SklEpisodeResult {
  trajectory: SklTrajectoryRecord;
  pairs: SklDistillRecord[];
}

export const SKL_SYSTEM_PROMPT =
  "You solve chess puzzles. Before each move you simulated a few continuations from the position; " +
  'use the state knowledge they produced to choose the move. Answer with {"type":"uci","move":"e2e4"}.';
const STUDENT_SYSTEM_PROMPT =
  "You solve chess puzzles. Describe what you know about the position: which moves win, lose or stay open.";

function statusOf(observation: Observation): SklTrajectoryRecord["status"] {
  const s = observation.data?.status;
  return s === "won" || s === "lost" || s === "draw" || s === "truncated" ? s : "running";
}

function fenOf(observation: Observation): string {
  const key = observation.stateKey;
  if (key === undefined) {
    throw new EnvironmentError("knowledge.no_state_key", "The chess observation has no stateKey (FEN).");
  }
  return key;
}

/**
 * One SKL-RL episode on the real environment: at each real step checkpoint s_t, simulate N branches of H
 * moves, write z_hat (keyed by the FEN), act from z_hat, step. Returns the GRPO trajectory and the
 * (z, z_hat) distillation pairs. Throws an EnvironmentError if simulation changed the real state.
 */
export async function runSklEpisode(ctx: SklEpisodeContext): Promise<SklEpisodeResult> {
  const { real, simulator, table } = ctx;
  const episodeId = `skl-rl:${ctx.expertRate.toFixed(6)}:${ctx.puzzleId}:${ctx.seed}`;
  const task = real.suite.get(ctx.puzzleId);
  let observation = await real.reset({ taskId: ctx.puzzleId, seed: ctx.seed });
  const steps: SklStep[] = [];
  const pairs: SklDistillRecord[] = [];
  let reward = 0;
  for (let t = 0; statusOf(observation) === "running"; t++) {
    const fen = fenOf(observation);
    const fingerprintBefore = await real.fingerprint();
    const root = await real.snapshot();
    const prior = table.read(fen);
    const branches = await simulateBranches({
      root,
      task,
      simulator,
      policy: ctx.simulationPolicy,
      n: ctx.n,
      h: ctx.h,
      randomFor: (b) => createRandom("skl-rl", "sim", ctx.seed, ctx.expertRate, ctx.puzzleId, t, b),
    });
    const fingerprintAfterSimulation = await real.fingerprint();
    if (fingerprintAfterSimulation !== fingerprintBefore) {
      throw new EnvironmentError("knowledge.simulation_leak", `Simulation changed the real state at ${fen}.`);
    }
    const fields = aggregateBranches(prior, branches, { n: ctx.n, h: ctx.h });
    const text = describeSimulationKnowledge(fen, fields);
    const written = await table.write({
      key: fen,
      epoch: 0,
      expectedVersion: prior?.version ?? 0,
      writer: SIMULATION_WRITER,
      fields,
      text,
      provenance: {
        episodeIds: [...new Set([...(prior?.provenance.episodeIds ?? []), episodeId])],
        continuationIds: [
          ...(prior?.provenance.continuationIds ?? []),
          ...branches.map((b) => `${episodeId}:${t}:${b.branch}`),
        ],
      },
    });
    const zHatVersion = written.written ? written.entry.version : (prior?.version ?? 0);
    const z: KnowledgeSnapshot = prior
      ? { version: prior.version, text: prior.text, fields: prior.fields }
      : { version: 0, text: EMPTY_KNOWLEDGE_TEXT, fields: null };
    const zHat = { version: zHatVersion, text, fields };
    const { move, source } = await chooseMove(ctx, fields, observation, t);
    if (move === null) break;
    const action: Action = { type: "uci", move };
    const result = await real.step(action);
    reward += result.reward;
    const userText = `${observation.text}\n\nState knowledge after simulation:\n${text}`;
    steps.push({
      stepIndex: t,
      stateKey: fen,
      fingerprintBefore,
      fingerprintAfterSimulation,
      fingerprintAfterStep: await real.fingerprint(),
      prompt: [
        { role: "system", content: SKL_SYSTEM_PROMPT },
        { role: "user", content: userText },
      ],
      completion: JSON.stringify(action),
      action: move,
      actionSource: source,
      opponentReply: typeof result.info.opponentMove === "string" ? result.info.opponentMove : null,
      stepReward: result.reward,
      simulations: branches,
      z,
      zHat,
    });
    pairs.push({
      kind: "skl-rl-distill",
      objective: ctx.klDirection,
      episodeId,
      puzzleId: ctx.puzzleId,
      expertRate: ctx.expertRate,
      stepIndex: t,
      stateKey: fen,
      prompt: [
        { role: "system", content: STUDENT_SYSTEM_PROMPT },
        { role: "user", content: observation.text },
      ],
      z,
      zHat,
    });
    observation = result.observation;
  }
  const trajectory: SklTrajectoryRecord = {
    kind: "skl-rl-trajectory",
    episodeId,
    puzzleId: ctx.puzzleId,
    expertRate: ctx.expertRate,
    seed: ctx.seed,
    budget: { n: ctx.n, h: ctx.h },
    status: statusOf(observation),
    reward,
    steps,
  };
  return { trajectory, pairs };
}

/** The comparison: the acting policy alone (no simulation, no knowledge). Returns status and reward. */
export async function runBaselineEpisode(
  ctx: Pick<SklEpisodeContext, "real" | "actingPolicy" | "puzzleId" | "expertRate" | "seed">,
): Promise<{ status: SklTrajectoryRecord["status"]; reward: number; moves: string[] }> {
  let observation = await ctx.real.reset({ taskId: ctx.puzzleId, seed: ctx.seed });
  let reward = 0;
  const moves: string[] = [];
  for (let t = 0; statusOf(observation) === "running"; t++) {
    const move = await actingMove(ctx.actingPolicy, ctx, observation, t);
    if (move === null) break;
    const result = await ctx.real.step({ type: "uci", move });
    moves.push(move);
    reward += result.reward;
    observation = result.observation;
  }
  return { status: statusOf(observation), reward, moves };
}
