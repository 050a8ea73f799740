// World-model benchmark: the median step time of a real environment and of the world-model environment
// built in this run from that environment's real traces, on the same workload (same task, seed and
// action sequence, replayed round after round with untimed resets), interleaved step for step so
// that machine load affects both sides alike, reported as ratios real/WM. The world model first takes
// 1,000 steps alone (to its code's compiled steady state; the median of the second half is reported
// as `...StepAlone`), then both sides a few interleaved untimed ones. Run by bench/run.ts.
//
// FrozenLake: 4x4, not slippery, the six moves from start to goal; the book is built from that
// sequence's episodes and seeded random walks; `frozenLakeBuild...` is induction at scale (10,000
// transitions of random walks on 8x8 slippery), CPU µs per trace step against recording them.
// Web: the built-in short task enter-text (real Chromium): click the field, type, Backspace, type,
// Submit; two books are built from episodes of that sequence: `webRules...` from 6 (the rules are
// supported: every step is the rule path, as `webRulesRulePathShare` shows) and `webRetrieval...` from
// the first 3 (the rules stay tentative: every step is the retrieval fallback). The WM steps that abstain (worldmodel_unknown) are counted and
// reported. For the web, besides the interleaved step medians, `...Block...` is what a training loop
// sees: rounds of two real episodes (steps timed) then 200 WM episodes back to back (resets included,
// timed in chunks by wall clock and by process CPU time), ratios real step / WM step. Chromium's own
// CPU time is not in the process's, so the real side is wall time only.
import type { Action, Environment, GridDirection, Task } from "../src/core/index.ts";
import { createRandom } from "../src/core/random.ts";
import { createFrozenLakeEnvironment } from "../src/envs/frozenlake/index.ts";
import { stateViewerFor } from "../src/envs/state-viewers.ts";
import { createWebEnvironment } from "../src/envs/web/index.ts";
import { createWorldModelEnvironment } from "../src/worldmodel/environment/index.ts";
import { buildWorldbook, type TraceStep, type WorldbookOptionsInput } from "../src/worldmodel/index.ts";
import { cpuSeconds } from "./stats.ts";

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Plays `actions` from a reset of `taskId`/`seed` and records each transition with the family's state view. */
async function record(
  env: Environment,
  task: Task,
  seed: number,
  episodeId: string,
  actions: ReadonlyArray<Action>,
): Promise<TraceStep[]> {
  const viewer = stateViewerFor(env.family);
  if (!viewer) throw new Error(`bench: no state viewer for ${env.family}`);
  const steps: TraceStep[] = [];
  let observation = await env.reset({ taskId: task.id, seed });
  for (const [step, action] of actions.entries()) {
    const r = await env.step(action);
    steps.push({
      episodeId,
      taskId: task.id,
      family: env.family,
      seed,
      step,
      observation,
      action,
      nextObservation: r.observation,
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      state: viewer.view(observation, task),
      nextState: viewer.view(r.observation, task),
      source: "run:bench",
    });
    observation = r.observation;
    if (r.terminated || r.truncated) break;
  }
  return steps;
}

interface Timings {
  realStepMs: number;
  worldModelStepMs: number;
  /** Steps timed on each side. */
  steps: number;
  /** Share of the WM steps that abstained (the gates knew no outcome). */
  worldModelUnknownShare: number;
}

/** Replays `actions` on both environments (same task and seed) until `minSteps` steps, interleaved. */
async function compare(
  real: Environment,
  wm: Environment,
  taskId: string,
  seed: number,
  actions: ReadonlyArray<Action>,
  minSteps: number,
): Promise<Timings> {
  const realMs: number[] = [];
  const wmMs: number[] = [];
  let unknown = 0;
  while (realMs.length < minSteps) {
    await real.reset({ taskId, seed });
    await wm.reset({ taskId, seed });
    for (const action of actions) {
      const r = await timed(() => real.step(action));
      const w = await timed(() => wm.step(action));
      realMs.push(r.ms);
      wmMs.push(w.ms);
      if (w.value.observation.error?.code === "worldmodel_unknown") unknown++;
      if (r.value.terminated || r.value.truncated) break;
    }
  }
  return {
    realStepMs: median(realMs),
    worldModelStepMs: median(wmMs),
    steps: realMs.length,
    worldModelUnknownShare: unknown / wmMs.length,
  };
}

/**
 * Steps of one environment alone, bringing its code to its compiled steady state; returns the median
 * step of the second half (the environment's step with nothing interleaved).
 */
async function warmUp(
  env: Environment,
  taskId: string,
  seed: number,
  actions: ReadonlyArray<Action>,
  steps: number,
): Promise<number> {
  const ms: number[] = [];
  while (ms.length < steps) {
    await env.reset({ taskId, seed });
    for (const action of actions) {
      const r = await timed(() => env.step(action));
      ms.push(r.ms);
      if (r.value.terminated || r.value.truncated) break;
    }
  }
  return median(ms.slice(ms.length >> 1));
}

const FROZENLAKE_OPTIONS: WorldbookOptionsInput = {
  lookups: [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }],
};
const DIRECTIONS: GridDirection[] = ["left", "down", "right", "up"];

async function frozenLake(): Promise<Record<string, number>> {
  const real = createFrozenLakeEnvironment({ slippery: false });
  const task = real.suite.get("4x4");
  const path: Action[] = ["right", "right", "down", "down", "down", "right"].map((d) => ({
    type: "move",
    direction: d as GridDirection,
  }));
  const random = createRandom("bench-worldmodel", "frozenlake");
  const steps: TraceStep[] = [];
  for (let e = 0; e < 4; e++) steps.push(...(await record(real, task, e, `path-${e}`, path)));
  for (let e = 0; e < 40; e++) {
    const walk = Array.from(
      { length: 20 },
      (): Action => ({
        type: "move",
        direction: DIRECTIONS[random.int(4)] as GridDirection,
      }),
    );
    steps.push(...(await record(real, task, e, `walk-${String(e).padStart(2, "0")}`, walk)));
  }
  const built = await timed(async () => buildWorldbook(steps, FROZENLAKE_OPTIONS, { tasks: [task] }));
  const wm = await createWorldModelEnvironment({ book: built.value });
  try {
    const alone = await warmUp(wm, task.id, 0, path, 1000);
    await compare(real, wm, task.id, 0, path, 600); // warm-up of both, interleaved
    const t = await compare(real, wm, task.id, 0, path, 3000);
    return {
      frozenLakeTraceSteps: steps.length,
      frozenLakeBuildMs: built.ms,
      frozenLakeRealStepUs: t.realStepMs * 1000,
      frozenLakeWorldModelStepUs: t.worldModelStepMs * 1000,
      frozenLakeWorldModelStepAloneUs: alone * 1000,
      frozenLakeRealOverWorldModelRatio: t.realStepMs / t.worldModelStepMs,
      frozenLakeWorldModelUnknownShare: t.worldModelUnknownShare,
      frozenLakeStepsTimed: t.steps,
    };
  } finally {
    await wm.close();
    await real.close();
  }
}

interface BlockTimings {
  /** Median real step (wall) over the real blocks. */
  realStepMs: number;
  /** World-model steps per block: wall and CPU time of the whole block (resets included) per step. */
  worldModelBlockStepWallMs: number;
  worldModelBlockStepCpuMs: number;
  /** Share of the WM steps whose fired basis is a worldbook rule (the rule path, not retrieval). */
  rulePathShare: number;
  worldModelSteps: number;
}

/**
 * The measure a training loop sees, in the same run as the real steps: rounds of one real block (a few
 * episodes of `actions`, each step timed, resets untimed) then one world-model block (`episodes`
 * episodes back to back, resets included, timed by wall clock and `process.cpuUsage` in chunks of
 * CHUNK episodes). The real side is the median step; the WM side the median over all chunks of the
 * chunk's time per step.
 */
async function blocks(
  real: Environment,
  wm: Environment,
  ruleIds: ReadonlySet<string>,
  taskId: string,
  seed: number,
  actions: ReadonlyArray<Action>,
  rounds: number,
  episodes: number,
): Promise<BlockTimings> {
  const realMs: number[] = [];
  const wallMs: number[] = [];
  const cpuMs: number[] = [];
  let ruleSteps = 0;
  let wmSteps = 0;
  for (let round = 0; round < rounds; round++) {
    for (let e = 0; e < 2; e++) {
      await real.reset({ taskId, seed });
      for (const action of actions) {
        const r = await timed(() => real.step(action));
        realMs.push(r.ms);
        if (r.value.terminated || r.value.truncated) break;
      }
    }
    // The block runs back to back; it is timed in chunks of CHUNK episodes so that the median over
    // chunks passes over the ones another process preempted (wall) on a busy machine.
    for (let chunk = 0; chunk < episodes; chunk += CHUNK) {
      let steps = 0;
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let e = chunk; e < Math.min(episodes, chunk + CHUNK); e++) {
        await wm.reset({ taskId, seed });
        for (const action of actions) {
          const r = await wm.step(action);
          steps++;
          const fired = (r.info.worldmodel as { fired?: string[] } | undefined)?.fired ?? [];
          if (fired.length > 0 && fired.every((id) => ruleIds.has(id))) ruleSteps++;
          if (r.terminated || r.truncated) break;
        }
      }
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      wallMs.push(wall / steps);
      cpuMs.push((used.user + used.system) / 1000 / steps);
      wmSteps += steps;
    }
  }
  return {
    realStepMs: median(realMs),
    worldModelBlockStepWallMs: median(wallMs),
    worldModelBlockStepCpuMs: median(cpuMs),
    rulePathShare: ruleSteps / wmSteps,
    worldModelSteps: wmSteps,
  };
}

/** Every figure of one web world model (built from `steps`) against the real environment, named `prefix...`. */
async function webFigures(
  prefix: string,
  real: Environment,
  task: Task,
  seed: number,
  sequence: ReadonlyArray<Action>,
  steps: TraceStep[],
): Promise<Record<string, number>> {
  const built = await timed(async () => buildWorldbook(steps, {}, { tasks: [task] }));
  const ruleIds = new Set(built.value.rules.map((r) => r.id));
  const wm = await createWorldModelEnvironment({ book: built.value });
  try {
    const alone = await warmUp(wm, task.id, seed, sequence, 1000);
    await compare(real, wm, task.id, seed, sequence, 5); // warm-up of both, interleaved
    const t = await compare(real, wm, task.id, seed, sequence, 40);
    const b = await blocks(real, wm, ruleIds, task.id, seed, sequence, 8, 200);
    return {
      [`${prefix}TraceEpisodes`]: new Set(steps.map((s) => s.episodeId)).size,
      [`${prefix}BuildMs`]: built.ms,
      [`${prefix}SupportedRules`]: built.value.rules.filter((r) => r.status === "supported").length,
      [`${prefix}RulePathShare`]: b.rulePathShare,
      [`${prefix}RealStepMs`]: t.realStepMs,
      [`${prefix}WorldModelStepMs`]: t.worldModelStepMs,
      [`${prefix}WorldModelStepAloneMs`]: alone,
      [`${prefix}RealOverWorldModelRatio`]: t.realStepMs / t.worldModelStepMs,
      [`${prefix}RealOverWorldModelAloneRatio`]: t.realStepMs / alone,
      [`${prefix}WorldModelUnknownShare`]: t.worldModelUnknownShare,
      [`${prefix}StepsTimed`]: t.steps,
      [`${prefix}BlockRealStepMs`]: b.realStepMs,
      [`${prefix}BlockWorldModelStepWallMs`]: b.worldModelBlockStepWallMs,
      [`${prefix}BlockWorldModelStepCpuMs`]: b.worldModelBlockStepCpuMs,
      [`${prefix}BlockRealOverWorldModelWallRatio`]: b.realStepMs / b.worldModelBlockStepWallMs,
      [`${prefix}BlockRealOverWorldModelCpuRatio`]: b.realStepMs / b.worldModelBlockStepCpuMs,
      [`${prefix}BlockWorldModelSteps`]: b.worldModelSteps,
    };
  } finally {
    await wm.close();
  }
}

async function web(): Promise<Record<string, number>> {
  const real = await createWebEnvironment({ observation: { screenshot: false }, enforceMaxSteps: false });
  try {
    const task = real.suite.get("enter-text");
    const seed = 1;
    const first = await real.reset({ taskId: task.id, seed });
    const field = /\[([A-Za-z0-9_-]+)\] textbox/.exec(first.axtree ?? "")?.[1];
    const submit = /\[([A-Za-z0-9_-]+)\] button "Submit"/.exec(first.axtree ?? "")?.[1];
    if (!field || !submit) throw new Error("bench: no text field or Submit button on enter-text");
    const sequence: Action[] = [
      { type: "click", elementId: field },
      { type: "type", text: "ab", elementId: field },
      { type: "key", keys: "Backspace" },
      { type: "type", text: "c", elementId: field },
      { type: "click", elementId: submit },
    ];
    const steps: TraceStep[] = [];
    for (let e = 0; e < WEB_RULE_EPISODES; e++)
      steps.push(...(await record(real, task, seed, `seq-${e}`, sequence)));
    // 6 episodes: the task's rules reach the build's support (the rule path); the first 3: they stay
    // tentative and every step takes the retrieval fallback (the second line of figures).
    const few = steps.filter((s) => Number(s.episodeId.slice(4)) < WEB_RETRIEVAL_EPISODES);
    return {
      ...(await webFigures("webRules", real, task, seed, sequence, steps)),
      ...(await webFigures("webRetrieval", real, task, seed, sequence, few)),
    };
  } finally {
    await real.close();
  }
}

const WEB_RULE_EPISODES = 6;
/** Episodes per timed chunk of a world-model block. */
const CHUNK = 20;
const WEB_RETRIEVAL_EPISODES = 3;

/**
 * Worldbook induction at scale: seeded random walks (up to 60 moves) on 8x8 slippery FrozenLake until
 * 10,000 transitions are recorded, then the book built from them (best of 3 builds, process CPU time).
 * The in-run reference is the recording of the same traces (environment steps and state views).
 */
async function frozenLakeBuildThroughput(): Promise<Record<string, number>> {
  const real = createFrozenLakeEnvironment({ slippery: true });
  const task = real.suite.get("8x8");
  const random = createRandom("bench-worldmodel", "frozenlake-build");
  const steps: TraceStep[] = [];
  const recordStart = process.cpuUsage();
  for (let e = 0; steps.length < 10_000; e++) {
    const walk = Array.from(
      { length: 60 },
      (): Action => ({ type: "move", direction: DIRECTIONS[random.int(4)] as GridDirection }),
    );
    steps.push(...(await record(real, task, e, `walk-${String(e).padStart(4, "0")}`, walk)));
  }
  const recordMs = cpuSeconds(recordStart) * 1000;
  await real.close();
  const builds: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = process.cpuUsage();
    buildWorldbook(steps, FROZENLAKE_OPTIONS, { tasks: [task] });
    builds.push(cpuSeconds(start) * 1000);
  }
  const buildMs = Math.min(...builds);
  return {
    frozenLakeBuildTraceSteps: steps.length,
    frozenLakeBuildCpuUsPerStep: (buildMs * 1000) / steps.length,
    frozenLakeRecordCpuUsPerStep: (recordMs * 1000) / steps.length,
    frozenLakeBuildOverRecordRatio: buildMs / recordMs,
  };
}

/**
 * Real vs world-model step time for FrozenLake and the web (target: WM ≥ 100× faster than a web step),
 * and worldbook induction at scale.
 */
export async function benchWorldModel(): Promise<Record<string, number>> {
  return { ...(await frozenLake()), ...(await frozenLakeBuildThroughput()), ...(await web()) };
}
