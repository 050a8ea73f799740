import { type Action, createRandom, type GridDirection, type StateRecord } from "../../../src/core/index.ts";
import {
  createFrozenLakeEnvironment,
  type FrozenLakeConfigInput,
} from "../../../src/envs/frozenlake/index.ts";
import { stateViewerFor } from "../../../src/envs/state-viewers.ts";
import {
  buildWorldbook,
  type Rule,
  type TraceStep,
  WORLDBOOK_VERSION,
  type Worldbook,
  WorldbookOptionsSchema,
  worldbookDefaultsFor,
} from "../../../src/worldmodel/index.ts";

export const DIRS: GridDirection[] = ["left", "down", "right", "up"];
export const OPEN_MAP = ["SFFFF", "FFFFF", "FFFFF", "FFFFF", "FFFFG"];

/** Traces of a uniformly random policy on one custom FrozenLake map, viewed by the real state viewer. */
export async function frozenLakeTraces(
  config: FrozenLakeConfigInput,
  rows: string[],
  episodes: number,
  seed = "runtime-test",
): Promise<TraceStep[]> {
  const env = createFrozenLakeEnvironment({
    ...config,
    horizon: 40,
    suite: { standard: [], randomMaps: { count: 0 }, maps: [{ id: "m", rows }] },
  });
  const viewer = stateViewerFor("frozenlake");
  if (!viewer) throw new Error("no frozenlake viewer");
  const task = env.suite.get("m");
  const random = createRandom(seed, JSON.stringify(config));
  const steps: TraceStep[] = [];
  for (let e = 0; e < episodes; e++) {
    let observation = await env.reset({ taskId: "m", seed: e });
    for (let step = 0; ; step++) {
      const action: Action = {
        type: "move",
        direction: DIRS[Math.floor(random.next() * 4)] as GridDirection,
      };
      const result = await env.step(action);
      steps.push({
        episodeId: `ep-${String(e).padStart(4, "0")}`,
        taskId: "m",
        family: "frozenlake",
        seed: e,
        step,
        observation,
        action,
        nextObservation: result.observation,
        reward: result.reward,
        terminated: result.terminated,
        truncated: result.truncated,
        state: viewer.view(observation, task),
        nextState: viewer.view(result.observation, task),
        source: "run:runtime-test",
      });
      observation = result.observation;
      if (result.terminated || result.truncated) break;
    }
  }
  return steps;
}

export async function frozenLakeBook(
  config: FrozenLakeConfigInput,
  rows: string[],
  episodes: number,
): Promise<Worldbook> {
  return buildWorldbook(await frozenLakeTraces(config, rows, episodes), worldbookDefaultsFor(["frozenlake"]));
}

/** A rule with defaults: supported, confident, one deterministic outcome. */
export function rule(partial: Partial<Rule> & Pick<Rule, "id" | "action">): Rule {
  return {
    params: [],
    scope: { tasks: [] },
    conditions: [],
    outcomes: [{ effects: [], count: 10, probability: 1 }],
    stochastic: false,
    support: 10,
    counterexamples: 0,
    withheld: 0,
    confidence: 10 / 11,
    status: "supported",
    evidence: [],
    ...partial,
  };
}

/** A small hand-made worldbook: a checkbox page with a counter, for gate cases. */
export function handBook(rules: Rule[], extra: Partial<Worldbook> = {}): Worldbook {
  return {
    manifest: {
      version: WORLDBOOK_VERSION,
      families: ["hand"],
      sources: ["hand"],
      episodes: 1,
      transitions: 1,
      options: WorldbookOptionsSchema.parse({}),
    },
    schemas: {
      actions: [],
      fields: [
        { path: "box.checked", type: "boolean", mutable: true },
        { path: "count", type: "number", mutable: true },
        { path: "title", type: "string", mutable: false },
        { path: "mode", type: "string", mutable: true },
      ],
    },
    evidence: [],
    rules,
    outcomeRules: [],
    invariants: {
      constantWithinEpisode: ["title"],
      ranges: [{ path: "count", min: 0, max: 3 }],
      values: [{ path: "mode", values: ["a", "b"] }],
    },
    starts: [],
    tasks: [],
    ...extra,
  };
}

export const HAND_STATE: StateRecord = { "box.checked": false, count: 1, title: "T", mode: "a" };
