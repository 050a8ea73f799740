import {
  type Action,
  type Capabilities,
  type Environment,
  type EnvironmentSnapshot,
  type Observation,
  type ResetOptions,
  type StateRecord,
  type StateViewer,
  type StepResult,
  stateDigest,
  type TaskSuite,
  UserError,
  type VerifierResult,
} from "../../core/index.ts";
import { EpisodeSlot, endedStep, episodeEndedError } from "../../envs/episode-kit.ts";
import { stateViewerFor } from "../../envs/state-viewers.ts";
import type { ChatClient } from "../../llm/index.ts";
import type { SimulationTrace, Simulator, SimulatorOptionsInput } from "../runtime/contract.ts";
import { createSimulator, createWorkspace } from "../runtime/index.ts";
import { tryRender } from "../try-render.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import { invalidActionError } from "./action-check.ts";
import {
  chooseStart,
  episodeRandom,
  jsonCopy,
  SavedEpisodeSchema,
  saveEpisode,
  type WorldModelEpisode,
} from "./world-model-episode.ts";
import { createWorldModelSuite } from "./world-model-suite.ts";
import {
  loadWorldbook,
  type WorldbookIdentity,
  worldbookFamily,
  worldbookHash,
} from "./worldbook-identity.ts";

/** The family name the environment's own errors (closed, not reset, bad snapshot) carry. */
const SLOT_FAMILY = "worldmodel";

/** The horizon of a task that names none when reset gives no `maxSteps` (Gymnasium FrozenLake's 100). */
export const WORLDMODEL_DEFAULT_HORIZON = 100;

export interface WorldModelEnvironmentOptions {
  /** A worldbook directory (read with `readWorldbook`), or `book`. */
  dir?: string;
  book?: Worldbook;
  /** The manifest hash the caller expects (a resumed run): a different book is a UserError. */
  expectedHash?: string;
  /** Simulator options (system, confidenceThreshold, onReject, ...); validated. */
  options?: SimulatorOptionsInput;
  /** The chat client of the LLM proposer (`options.proposer: "llm"`). */
  llm?: ChatClient;
}

export interface WorldModelEnvironment extends Environment {
  /** The worldbook it simulates: directory (when read from one), manifest hash, family. */
  readonly worldbook: WorldbookIdentity;
  readonly simulator: Simulator;
  snapshot(): Promise<EnvironmentSnapshot>;
  restore(snapshot: EnvironmentSnapshot): Promise<Observation>;
}

/** The message of an abstained step: the reasons the gates gave. */
function unknownMessage(trace: SimulationTrace): string {
  const reasons = trace.rejected.map((r) => `${r.stage}${r.basis ? ` ${r.basis}` : ""}: ${r.reason}`);
  return `The world model does not know what this action does here (nothing passed the gates${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}); the state is unchanged.`;
}

/** Whether two states hold the same paths with the same values (lists compared item by item). */
function sameRecord(a: StateRecord, b: StateRecord): boolean {
  let n = 0;
  for (const path in a) {
    n++;
    const x = a[path];
    const y = b[path];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  let m = 0;
  for (const _ in b) m++;
  return n === m;
}

/** The observation the contract rendered for a state equal to `state`, if any (the workspace returns a copy). */
function renderedFor(
  rendered: ReadonlyMap<StateRecord, Observation>,
  state: StateRecord,
): Observation | undefined {
  const same = rendered.get(state);
  if (same) return same;
  for (const [s, o] of rendered) if (sameRecord(s, state)) return o;
  return undefined;
}

class WorldModel implements WorldModelEnvironment {
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  readonly family: string;
  readonly suite: TaskSuite;
  private readonly viewer: StateViewer;
  private readonly slot: EpisodeSlot<WorldModelEpisode>;
  /** Observations the observation contract rendered during the current step, by proposed state. */
  private readonly rendered = new Map<StateRecord, Observation>();
  /** The episode whose step is being simulated (the observation contract renders from it). */
  private stepping: WorldModelEpisode | undefined;

  constructor(
    private readonly book: Worldbook,
    readonly worldbook: WorldbookIdentity,
    readonly simulator: Simulator,
  ) {
    this.family = worldbook.family;
    const viewer = stateViewerFor(this.family);
    if (!viewer)
      throw new UserError(
        "worldmodel.no_viewer",
        `the worldbook simulates family ${this.family}, which has no state viewer to render observations; build worldbooks of frozenlake, chess, web or terminal traces`,
      );
    this.viewer = viewer;
    this.suite = createWorldModelSuite(
      `worldmodel:${worldbook.dir || worldbook.hash.slice(0, 12)}`,
      this.family,
      book.tasks,
    );
    this.slot = new EpisodeSlot(SLOT_FAMILY, "World model", (ep) => ({
      taskId: ep.task.id,
      seed: ep.seed,
      state: saveEpisode(ep, worldbook.hash),
    }));
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const { taskId, seed, maxSteps } = this.slot.parseReset(
      options,
      "{taskId: string, seed: non-negative integer, maxSteps?: positive integer}",
    );
    const task = this.suite.get(taskId);
    const start = chooseStart(this.book.starts, task, seed, this.worldbook.hash);
    const ep = this.slot.set({
      task,
      seed,
      start: start.episodeId,
      horizon: maxSteps ?? task.maxSteps ?? WORLDMODEL_DEFAULT_HORIZON,
      workspace: createWorkspace(this.book, { taskId: task.id, state: start.state }, this.simulator),
      observation: jsonCopy(start.observation),
      steps: 0,
      rewardSum: 0,
      unknownSteps: 0,
      terminated: false,
      truncated: false,
      random: episodeRandom(this.worldbook.hash, task.id, seed),
      lastError: undefined,
    });
    return jsonCopy(ep.observation);
  }

  /**
   * Why the current episode could not show `state` (its viewer's error), or undefined when it can; the
   * observation rendered is kept for the step that commits this very state.
   */
  unrenderable(state: StateRecord): string | undefined {
    const ep = this.stepping;
    if (!ep) return undefined;
    const r = tryRender(this.viewer, state, ep.observation, ep.task);
    if ("reason" in r) return r.reason;
    this.rendered.set(state, r.observation);
    return undefined;
  }

  async step(action: Action): Promise<StepResult> {
    const ep = this.slot.require("step");
    this.rendered.clear();
    if (ep.terminated || ep.truncated)
      return endedStep(this.observe(ep, episodeEndedError("world-model")), ep);
    ep.steps++;
    const invalid = invalidActionError(action);
    if (invalid) {
      ep.lastError = invalid;
      ep.unknownSteps++;
      ep.truncated = ep.steps >= ep.horizon;
      return {
        observation: this.observe(ep),
        reward: 0,
        terminated: false,
        truncated: ep.truncated,
        info: {},
      };
    }
    this.stepping = ep;
    const sim = await ep.workspace.step(action, ep.random.next()).finally(() => {
      this.stepping = undefined;
    });
    if (sim.trace.unknown) {
      ep.lastError = { code: "worldmodel_unknown", message: unknownMessage(sim.trace) };
      ep.unknownSteps++;
    } else {
      ep.lastError = undefined;
      ep.observation =
        renderedFor(this.rendered, sim.state) ?? this.viewer.render(sim.state, ep.observation, ep.task);
      this.rendered.clear();
    }
    const reward = sim.trace.unknown ? 0 : sim.reward;
    ep.rewardSum += reward;
    ep.terminated = !sim.trace.unknown && sim.terminated;
    ep.truncated = !ep.terminated && ep.steps >= ep.horizon;
    return {
      observation: this.observe(ep),
      reward,
      terminated: ep.terminated,
      truncated: ep.truncated,
      info: { worldmodel: jsonCopy(sim.trace) },
    };
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.slot.require("evaluate");
    const threshold = ep.task.verifier.successThreshold ?? 1;
    const success = ep.rewardSum >= threshold;
    const end = ep.terminated ? "ended" : ep.truncated ? "was cut at the horizon" : "is still running";
    return {
      reward: ep.rewardSum,
      success,
      reason: `simulated by the world model (worldbook ${this.worldbook.hash.slice(0, 12)}): reward ${ep.rewardSum} after ${ep.steps} steps (success needs ${threshold}); the episode ${end}`,
      metrics: { steps: ep.steps, unknownSteps: ep.unknownSteps },
    };
  }

  async fingerprint(): Promise<string> {
    const ep = this.slot.require("fingerprint");
    const done = ep.terminated || ep.truncated;
    return stateDigest(SLOT_FAMILY, ep.task.id, { state: ep.workspace.state(), step: ep.steps, done });
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    return this.slot.snapshot();
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = this.slot.readSnapshot(snapshot, SavedEpisodeSchema);
    const s = snap.state;
    if (s.book !== this.worldbook.hash)
      throw this.slot.badSnapshot(
        `World model restore(): the snapshot was made on worldbook ${s.book.slice(0, 12)}, this environment simulates ${this.worldbook.hash.slice(0, 12)}; restore snapshots on the worldbook that made them`,
      );
    const task = this.suite.get(snap.taskId);
    const random = episodeRandom(this.worldbook.hash, task.id, snap.seed);
    random.setState(s.random);
    const workspace = createWorkspace(this.book, s.workspace, this.simulator);
    workspace.restore(s.workspace);
    const ep = this.slot.set({
      task,
      seed: snap.seed,
      start: s.start,
      horizon: s.horizon,
      workspace,
      observation: s.observation,
      steps: s.steps,
      rewardSum: s.rewardSum,
      unknownSteps: s.unknownSteps,
      terminated: s.terminated,
      truncated: s.truncated,
      random,
      lastError: s.lastError,
    });
    return jsonCopy(ep.observation);
  }

  async close(): Promise<void> {
    this.slot.close();
  }

  /** The committed state's observation with the last action's error (or `error`). */
  private observe(ep: WorldModelEpisode, error = ep.lastError): Observation {
    const observation = jsonCopy(ep.observation);
    return error === undefined ? observation : { ...observation, error };
  }
}

/**
 * An Environment that simulates a worldbook (read from `dir` or given as `book`): reset starts from a
 * recorded start, step runs the gated simulator with a draw from the episode's seeded stream and
 * renders the next observation in the family's own format. Its steps carry `info.worldmodel` (the
 * rules fired, the gates' verdicts and rejections); an abstained step shows `worldmodel_unknown`.
 */
export async function createWorldModelEnvironment(
  input: WorldModelEnvironmentOptions,
): Promise<WorldModelEnvironment> {
  let book: Worldbook;
  let identity: WorldbookIdentity;
  if (input.book) {
    book = input.book;
    identity = { dir: "", hash: worldbookHash(book), family: worldbookFamily(book) };
  } else if (input.dir !== undefined) {
    ({ book, identity } = loadWorldbook(input.dir));
  } else {
    throw new UserError(
      "worldmodel.no_worldbook",
      "createWorldModelEnvironment() needs a worldbook: pass { dir } or { book }",
    );
  }
  if (input.expectedHash !== undefined && input.expectedHash !== identity.hash)
    throw new UserError(
      "worldbook.changed",
      `the worldbook ${identity.dir || "(in memory)"} has manifest hash ${identity.hash}, but ${input.expectedHash} was expected (the book was rebuilt since the run began); start a new run or restore that book`,
    );
  let model: WorldModel | undefined;
  // The observation contract: a proposal the family's viewer cannot render is rejected by the gate.
  const observable = (state: StateRecord) => model?.unrenderable(state);
  const simulator = createSimulator(book, input.options ?? {}, {
    ...(input.llm ? { llm: input.llm } : {}),
    observable,
  });
  model = new WorldModel(book, identity, simulator);
  return model;
}
