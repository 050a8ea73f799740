import type { Action } from "../../core/action.ts";
import type { Environment } from "../../core/environment.ts";
import { EnvironmentError } from "../../core/errors.ts";
import type { Observation } from "../../core/observation.ts";
import type { Policy, PolicyContext, Proposal } from "../../core/policy.ts";
import { createRandom } from "../../core/random.ts";
import type { ChessEnvironment } from "../../envs/chess/chess-environment.ts";
import type { KnowledgeTable } from "../../knowledge/knowledge-table.ts";
import { type EpisodeRecorder, playEpisode } from "../../knowledge/play-episode.ts";
import {
  aggregateBranches,
  describeSimulationKnowledge,
  EMPTY_KNOWLEDGE_TEXT,
  SIMULATION_WRITER,
} from "../../knowledge/simulation-knowledge.ts";
import { actingRandom, chooseMove } from "./choose.ts";
import type { KnowledgeSnapshot, SklDistillRecord, SklStep, SklTrajectoryRecord } from "./records.ts";
import { simulateBranches } from "./simulate.ts";

/** Where and as what a real episode is recorded: the run, its position there, and its step limit. */
export interface RealEpisodeContext {
  real: ChessEnvironment;
  actingPolicy: Policy;
  puzzleId: string;
  expertRate: number;
  seed: number;
  recorder: EpisodeRecorder;
  /** Position of the episode in the recorder's run. */
  episodeIndex: number;
  /** The environment's agent-move horizon (the episode loop's step limit). */
  maxSteps: number;
}

export interface SklEpisodeContext extends RealEpisodeContext {
  simulator: ChessEnvironment;
  table: KnowledgeTable;
  /** The simulation policy (mixed engine policy at the expert rate). */
  simulationPolicy: Policy;
  n: number;
  h: number;
  klDirection: "forward" | "reverse";
}

export interface SklEpisodeResult {
  trajectory: SklTrajectoryRecord;
  pairs: SklDistillRecord[];
  /** The real episode's trajectory in the recorder's store. */
  trajectoryId: string;
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

/** A decided real step: everything of its dataset records but what stepping the real environment tells. */
type Decision = Omit<SklStep, "fingerprintAfterStep" | "opponentReply" | "stepReward"> & {
  pair: SklDistillRecord;
};

/**
 * The SKL-RL acting policy of one episode: at each real state s_t, simulate N branches of H moves from a
 * checkpoint, write z_hat (keyed by the FEN), choose the move from it. Each decision is handed to
 * `decided` for the step that follows. Throws an EnvironmentError if simulation changed the real state.
 */
function sklActingPolicy(ctx: SklEpisodeContext, episodeId: string, decided: (d: Decision) => void): Policy {
  const { real, simulator, table } = ctx;
  const task = real.suite.get(ctx.puzzleId);
  let stopped = false;
  return {
    name: `skl-rl(${ctx.expertRate.toFixed(3)})`,
    async propose(context: PolicyContext): Promise<Proposal> {
      // No move once one step found none: the rest of the episode only runs out its step limit.
      if (stopped) return { candidates: [{ action: null, raw: "", parseError: NO_MOVE }] };
      const { observation, stepIndex: t } = context;
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
        throw new EnvironmentError(
          "knowledge.simulation_leak",
          `Simulation changed the real state at ${fen}.`,
        );
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
      if (move === null) {
        stopped = true;
        return { candidates: [{ action: null, raw: "", parseError: NO_MOVE }] };
      }
      const action: Action = { type: "uci", move };
      const completion = JSON.stringify(action);
      decided({
        stepIndex: t,
        stateKey: fen,
        fingerprintBefore,
        fingerprintAfterSimulation,
        prompt: [
          { role: "system", content: SKL_SYSTEM_PROMPT },
          { role: "user", content: `${observation.text}\n\nState knowledge after simulation:\n${text}` },
        ],
        completion,
        action: move,
        actionSource: source,
        simulations: branches,
        z,
        zHat,
        pair: {
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
        },
      });
      return { candidates: [{ action, raw: completion }] };
    },
  };
}

const NO_MOVE = { code: "skl.no_move", message: "z_hat and the acting policy found no move" };

/**
 * The real environment as the episode loop sees it: each step completes the pending decision with what
 * the step did (opponent reply, reward, fingerprint after) and adds the knowledge it acted on to the
 * step's info (`skl`: state key, action source, z version, z_hat, branch count), so the stored
 * trajectory shows it.
 */
function decidingEnvironment(
  real: ChessEnvironment,
  pending: () => Decision | undefined,
  done: (step: { step: SklStep; pair: SklDistillRecord } | undefined, observation: Observation) => void,
): Environment {
  return {
    family: real.family,
    capabilities: real.capabilities,
    suite: real.suite,
    async reset(options) {
      const observation = await real.reset(options);
      done(undefined, observation);
      return observation;
    },
    async step(action) {
      const result = await real.step(action);
      const decision = pending();
      if (!decision) {
        done(undefined, result.observation);
        return result;
      }
      const { pair, ...decided } = decision;
      const step: SklStep = {
        ...decided,
        fingerprintAfterStep: await real.fingerprint(),
        opponentReply: typeof result.info.opponentMove === "string" ? result.info.opponentMove : null,
        stepReward: result.reward,
      };
      done({ step, pair }, result.observation);
      const skl = {
        stateKey: step.stateKey,
        actionSource: step.actionSource,
        zVersion: step.z.version,
        zHat: step.zHat,
        branches: step.simulations.length,
      };
      return { ...result, info: { ...result.info, skl } };
    },
    evaluate: () => real.evaluate(),
    fingerprint: () => real.fingerprint(),
    snapshot: () => real.snapshot(),
    restore: (snapshot) => real.restore(snapshot),
    close: async () => {},
  };
}

/**
 * One SKL-RL episode on the real environment, through the shared episode loop (recorded in the
 * recorder's run, z_hat in each step's info): at each real step checkpoint s_t, simulate N branches of
 * H moves in the simulator (in memory, not recorded), write z_hat, act from z_hat, step. Returns the GRPO
 * trajectory and the (z, z_hat) distillation pairs. Throws an EnvironmentError if simulation changed the
 * real state.
 */
export async function runSklEpisode(ctx: SklEpisodeContext): Promise<SklEpisodeResult> {
  const episodeId = `skl-rl:${ctx.expertRate.toFixed(6)}:${ctx.puzzleId}:${ctx.seed}`;
  const steps: SklStep[] = [];
  const pairs: SklDistillRecord[] = [];
  let decision: Decision | undefined;
  let last: Observation | undefined;
  const env = decidingEnvironment(
    ctx.real,
    () => {
      const d = decision;
      decision = undefined;
      return d;
    },
    (played, observation) => {
      if (played) {
        steps.push(played.step);
        pairs.push(played.pair);
      }
      last = observation;
    },
  );
  const played = await playEpisode({
    ...realEpisode(ctx, episodeId),
    env,
    policy: sklActingPolicy(ctx, episodeId, (d) => {
      decision = d;
    }),
  });
  const trajectory: SklTrajectoryRecord = {
    kind: "skl-rl-trajectory",
    episodeId,
    puzzleId: ctx.puzzleId,
    expertRate: ctx.expertRate,
    seed: ctx.seed,
    budget: { n: ctx.n, h: ctx.h },
    status: last ? statusOf(last) : "running",
    reward: steps.reduce((a, s) => a + s.stepReward, 0),
    steps,
  };
  return { trajectory, pairs, trajectoryId: played.trajectoryId };
}

/** The `playEpisode` options every real chess episode shares (the acting generator keys the steps). */
function realEpisode(ctx: RealEpisodeContext, episodeId: string) {
  return {
    // The trajectory id: unique in the run even when a puzzle is listed twice.
    id: `${episodeId}@${ctx.episodeIndex}`,
    task: ctx.real.suite.get(ctx.puzzleId),
    seed: ctx.seed,
    episodeIndex: ctx.episodeIndex,
    maxSteps: ctx.maxSteps,
    temperature: 1,
    random: (step: number) => actingRandom(ctx, step),
    recorder: ctx.recorder,
  };
}

/**
 * The comparison: the acting policy alone (no simulation, no knowledge), through the shared episode
 * loop (recorded like the SKL-RL episode). Returns the final reward and the moves played.
 */
export async function runBaselineEpisode(
  ctx: RealEpisodeContext,
): Promise<{ reward: number; moves: string[]; trajectoryId: string }> {
  const id = `skl-rl-baseline:${ctx.expertRate.toFixed(6)}:${ctx.puzzleId}:${ctx.seed}`;
  const played = await playEpisode({ ...realEpisode(ctx, id), env: ctx.real, policy: ctx.actingPolicy });
  const moves = played.steps.flatMap((s) => (s.action.type === "uci" ? [s.action.move] : []));
  return { reward: played.return, moves, trajectoryId: played.trajectoryId };
}
