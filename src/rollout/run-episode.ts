import {
  createRandom,
  type Environment,
  type ErrorInfo,
  type HistoryEntry,
  isRehearsalError,
  type Observation,
  type Policy,
  type PolicyContext,
  type Runtime,
  type StepRecord,
  syncTwinOf,
  type Task,
  type Usage,
  type VerifierResult,
} from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { isStoreError } from "../store/store-errors.ts";

/** The runner's own limit when neither the spec nor the task gives one (the environment's horizon ends
 * an episode long before it in practice). */
export const RUNNER_STEP_CAP = 1000;

/** The meta of an episode given none: one frozen object (a store caches a frozen record's text). */
const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

export interface EpisodeSpec {
  runId: string;
  trajectoryId: string;
  task: Task;
  episodeIndex: number;
  seed: number;
  /**
   * The episode's step limit (a `--max-steps`): passed to `env.reset`, so an environment with its own
   * horizon truncates at the same step. Without it the task's `maxSteps` limits the runner and the
   * environment keeps its own horizon (the runner still stops at `RUNNER_STEP_CAP`). Whichever limit
   * stops the episode, its last step is recorded `truncated: true`.
   */
  maxSteps?: number;
  temperature: number;
  meta?: Record<string, unknown>;
}

export interface EpisodeResult {
  trajectoryId: string;
  taskId: string;
  episodeIndex: number;
  status: "complete" | "infra_failed";
  steps: number;
  parseErrors: number;
  outcome?: VerifierResult;
  error?: ErrorInfo;
  usage: Usage;
}

export interface EpisodeDeps {
  env: Environment;
  policy: Policy;
  runtime: Runtime;
  store?: RunStore;
  /** Once aborted, the episode stops at the next step and is recorded `aborted` (then rethrown). */
  signal?: AbortSignal;
}

function errorInfo(e: unknown): ErrorInfo {
  if (isRehearsalError(e)) return { code: e.code, category: e.category, message: e.message };
  return {
    code: "internal.unexpected",
    category: "internal",
    message: e instanceof Error ? e.message : String(e),
  };
}

/** A step record, built once with its final values (one allocation per step). */
function stepRecord(
  index: number,
  observation: Observation,
  candidate: { action: StepRecord["action"]; raw: string },
  reward: number,
  terminated: boolean,
  truncated: boolean,
  info: Record<string, unknown>,
  timeMs: number,
): StepRecord {
  return {
    index,
    observation,
    action: candidate.action,
    raw: candidate.raw,
    reward,
    terminated,
    truncated,
    info,
    timeMs,
  };
}

/**
 * Plays one episode: reset, then propose → step until the episode ends or `maxSteps`, then verify.
 * Every step is appended to the store as it happens (the SQLite store commits steps in batches, an
 * episode's last ones with its end). A policy output that does not parse is recorded
 * (raw text kept, action null) and counted; the environment is not stepped for it. An environment
 * failure ends the episode as `infra_failed` (never a reward); any other failure marks it aborted and
 * is rethrown.
 */
export async function runEpisode(deps: EpisodeDeps, spec: EpisodeSpec): Promise<EpisodeResult> {
  const { env, policy, runtime, store } = deps;
  const { task, seed } = spec;
  const clock = runtime.clock;
  const usage: Usage = { promptTokens: 0, completionTokens: 0, calls: 0 };
  let parseErrors = 0;
  let steps = 0;
  store?.startTrajectory({
    id: spec.trajectoryId,
    runId: spec.runId,
    taskId: task.id,
    episodeIndex: spec.episodeIndex,
    seed,
    policy: policy.name,
    startedAtMs: clock.nowMs(),
    meta: spec.meta ?? NO_META,
  });
  let observation: Observation | undefined;
  try {
    observation = await env.reset({
      taskId: task.id,
      seed,
      ...(spec.maxSteps === undefined ? {} : { maxSteps: spec.maxSteps }),
    });
    const limit = spec.maxSteps ?? task.maxSteps ?? RUNNER_STEP_CAP;
    const history: HistoryEntry[] = [];
    const oracle = env.oracleAction ? () => env.oracleAction!() : undefined;
    // One stream per episode, seeded once from stable keys: the same episode always draws the same values.
    const options = {
      n: 1,
      temperature: spec.temperature,
      random: createRandom("policy", task.id, seed, spec.episodeIndex),
    };
    let ended = false;
    while (!ended && steps < limit) {
      deps.signal?.throwIfAborted();
      const context: PolicyContext = { task, observation, history, stepIndex: steps };
      if (oracle) context.oracle = oracle;
      // The synchronous twin where the policy's propose (and below, the environment's step) has one.
      const proposeNow = syncTwinOf(policy.propose);
      const proposal = proposeNow ? proposeNow(context, options) : await policy.propose(context, options);
      if (proposal.usage) {
        usage.promptTokens += proposal.usage.promptTokens;
        usage.completionTokens += proposal.usage.completionTokens;
        usage.calls += proposal.usage.calls;
      }
      const candidate = proposal.candidates[0] ?? {
        action: null,
        raw: "",
        parseError: { code: "empty", message: "no candidate" },
      };
      // The step's time is taken before the environment steps (as it is proposed).
      const timeMs = clock.nowMs();
      const shown = observation;
      let record: StepRecord;
      if (candidate.action === null) {
        parseErrors += 1;
        record = stepRecord(steps, shown, candidate, 0, false, false, { skipped: true }, timeMs);
        record.parseError = candidate.parseError ?? {
          code: "parse_error",
          message: "the output did not parse",
        };
      } else {
        const stepNow = syncTwinOf(env.step);
        const result = stepNow ? stepNow(candidate.action) : await env.step(candidate.action);
        const { reward, terminated, truncated } = result;
        record = stepRecord(steps, shown, candidate, reward, terminated, truncated, result.info, timeMs);
        ended = terminated || truncated;
        history.push({ observation: shown, action: candidate.action, raw: candidate.raw });
        observation = result.observation;
      }
      // Stopped by the step limit: say so, whether the environment's horizon or the runner's cut it.
      if (!ended && steps + 1 >= limit) record.truncated = true;
      store?.appendStep(spec.trajectoryId, record);
      steps += 1;
    }
    const outcome = await env.evaluate();
    store?.finishTrajectory(spec.trajectoryId, {
      status: "complete",
      endedAtMs: clock.nowMs(),
      finalObservation: observation,
      outcome,
    });
    return {
      trajectoryId: spec.trajectoryId,
      taskId: task.id,
      episodeIndex: spec.episodeIndex,
      status: "complete",
      steps,
      parseErrors,
      outcome,
      usage,
    };
  } catch (e) {
    const error = errorInfo(e);
    // After an abort (SIGINT/SIGTERM) a failing environment is the shutdown, not an infra failure.
    // A failing run store is not the environment's failure: the run stops (the store says why).
    const infra =
      isRehearsalError(e) && e.category === "environment" && !deps.signal?.aborted && !isStoreError(e);
    try {
      store?.finishTrajectory(spec.trajectoryId, {
        status: infra ? "infra_failed" : "aborted",
        endedAtMs: clock.nowMs(),
        ...(observation ? { finalObservation: observation } : {}),
        error,
      });
    } catch (storeFailure) {
      // The store broke while recording the end: the error that stopped the episode matters more,
      // unless the episode would have gone on (then the store's failure stops the run).
      if (infra) throw storeFailure;
      runtime.logger.warn("recording the episode's end failed", {
        trajectoryId: spec.trajectoryId,
        ...errorInfo(storeFailure),
      });
    }
    if (!infra) throw e;
    runtime.logger.warn("episode infra-failed", { trajectoryId: spec.trajectoryId, ...error });
    return {
      trajectoryId: spec.trajectoryId,
      taskId: task.id,
      episodeIndex: spec.episodeIndex,
      status: "infra_failed",
      steps,
      parseErrors,
      error,
      usage,
    };
  }
}
