// Environment step throughput in-process, per family, in steps per CPU-second (`process.cpuUsage()`,
// so a busy machine slows the figure less than wall time would). Run by bench/run.ts.
//
// FrozenLake: 8x8 slippery, random moves picked from the observation's legal actions (what a random
// policy does), resets included, against an in-run reference: a bare loop over the same step tables
// and the same seeded stream, with no environment contract (no promises, no observation, no info).
// The ratio against Gymnasium's measured FrozenLake-v1 step rate is reported too, against a constant.
import { createRandom, weightedIndex } from "../src/core/random.ts";
import { createChessEnvironment } from "../src/envs/chess/index.ts";
import { createFrozenLakeEnvironment, FROZENLAKE_FAMILY, standardMap } from "../src/envs/frozenlake/index.ts";
import { stepTables } from "../src/envs/frozenlake/tables.ts";
import { cpuSeconds, median } from "./stats.ts";

/** Gymnasium FrozenLake-v1 8x8 slippery, `env.step` with random actions, measured on this machine (constant). */
export const GYMNASIUM_FROZENLAKE_STEPS_PER_CPU_SECOND = 97_000;

/** A fixed action stream independent of the environment's (xorshift32). */
function actionBits(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) & 3;
  };
}

/** FrozenLake 8x8 slippery `env.step` (random legal moves, resets included): steps per CPU-second. */
export async function frozenLakeSteps(steps: number): Promise<number> {
  const env = createFrozenLakeEnvironment({});
  const next = actionBits(7);
  let seed = 0;
  let observation = await env.reset({ taskId: "8x8", seed: seed++ });
  const start = process.cpuUsage();
  for (let i = 0; i < steps; i++) {
    const action = observation.legalActions?.[next()];
    if (!action) throw new Error("bench: FrozenLake listed no legal actions");
    const r = await env.step(action);
    observation =
      r.terminated || r.truncated ? await env.reset({ taskId: "8x8", seed: seed++ }) : r.observation;
  }
  const rate = steps / cpuSeconds(start);
  await env.close();
  return rate;
}

/** The reference: the same table lookups and draws as the environment's step, nothing else. */
function bareLoopSteps(steps: number): number {
  const map = standardMap("8x8");
  const t = stepTables(map, createFrozenLakeEnvironment({}).dynamics);
  const next = actionBits(7);
  const startCell = map.start.row * map.size + map.start.col;
  let seed = 0;
  let random = createRandom(FROZENLAKE_FAMILY, "8x8", seed++);
  let cell = startCell;
  let taken = 0;
  let checksum = 0;
  const start = process.cpuUsage();
  for (let i = 0; i < steps; i++) {
    const a = next();
    const k = weightedIndex(random.next(), t.weights, t.weightTotal);
    cell = t.landing[(cell * 4 + a) * 3 + k] as number;
    checksum += k;
    const tile = t.tiles[cell];
    if (tile === "H" || tile === "G" || ++taken >= 100) {
      random = createRandom(FROZENLAKE_FAMILY, "8x8", seed++);
      cell = startCell;
      taken = 0;
    }
  }
  const rate = steps / cpuSeconds(start);
  if (checksum < 0) throw new Error("unreachable");
  return rate;
}

async function chessSteps(rounds: number): Promise<number> {
  const env = createChessEnvironment({});
  const tasks = env.suite.list();
  let steps = 0;
  let used = 0;
  for (let round = 0; round < rounds; round++) {
    for (const task of tasks) {
      await env.reset({ taskId: task.id, seed: round });
      const start = process.cpuUsage();
      for (let action = await env.oracleAction(); action; action = await env.oracleAction()) {
        const r = await env.step(action);
        steps++;
        if (r.terminated || r.truncated) break;
      }
      used += cpuSeconds(start);
    }
  }
  await env.close();
  return steps / used;
}

/**
 * Steps per CPU-second of each symbolic family; FrozenLake's the median of 5 interleaved rounds of
 * `steps` after a warm-up (rounds of about a third of a CPU-second each, so that a preempted or
 * cache-starved round on a loaded machine moves the median little), chess's the median of 3.
 */
export async function benchEnvStep(steps = 1_000_000): Promise<Record<string, number>> {
  await frozenLakeSteps(steps / 10);
  bareLoopSteps(steps / 10);
  const env: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < 5; round++) {
    env.push(await frozenLakeSteps(steps));
    bare.push(bareLoopSteps(steps));
  }
  await chessSteps(1);
  const chess = [await chessSteps(3), await chessSteps(3), await chessSteps(3)];
  const fl = median(env);
  return {
    frozenLakeStepsPerCpuSecond: fl,
    frozenLakeBareLoopStepsPerCpuSecond: median(bare),
    frozenLakeRatioToBareLoop: fl / median(bare),
    gymnasiumStepsPerCpuSecondConstant: GYMNASIUM_FROZENLAKE_STEPS_PER_CPU_SECOND,
    frozenLakeRatioToGymnasiumConstant: fl / GYMNASIUM_FROZENLAKE_STEPS_PER_CPU_SECOND,
    chessStepsPerCpuSecond: median(chess),
  };
}
