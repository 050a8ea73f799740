import { type Action, createRandom, type StateRecord } from "../../../src/core/index.ts";
import type { FrozenLakeConfigInput } from "../../../src/envs/frozenlake/index.ts";
import { stateViewerFor } from "../../../src/envs/state-viewers.ts";
import {
  actionKey,
  buildWorldbook,
  type Evidence,
  type Rule,
  type Start,
  type TraceStep,
  WORLDBOOK_VERSION,
  type Worldbook,
  WorldbookOptionsSchema,
  worldbookDefaultsFor,
} from "../../../src/worldmodel/index.ts";
import { pad4, singleMapRandomTraces } from "../traces-helpers.ts";

export { DIRS } from "../traces-helpers.ts";
export const OPEN_MAP = ["SFFFF", "FFFFF", "FFFFF", "FFFFF", "FFFFG"];

/** Traces of a uniformly random policy on one custom FrozenLake map, viewed by the real state viewer. */
export async function frozenLakeTraces(
  config: FrozenLakeConfigInput,
  rows: string[],
  episodes: number,
  seed = "runtime-test",
): Promise<TraceStep[]> {
  const viewer = stateViewerFor("frozenlake");
  if (!viewer) throw new Error("no frozenlake viewer");
  return singleMapRandomTraces({
    config,
    rows,
    episodes,
    horizon: 40,
    random: createRandom(seed, JSON.stringify(config)),
    viewer,
    episodeId: (_taskId, e) => `ep-${pad4(e)}`,
    source: "run:runtime-test",
  });
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

/** A hand-made piece of evidence of task `t`: `id` is `EPISODE#STEP`, unattributed (a counterexample). */
export function handEvidence(
  id: string,
  step: number,
  action: Action,
  facts: Evidence["facts"],
  effects: Evidence["effects"],
): Evidence {
  return {
    id,
    provenance: { source: "hand", episodeId: id.split("#")[0] as string, taskId: "t", step },
    action: actionKey(action),
    facts,
    effects,
    outcome: { reward: 0, terminated: false, truncated: false },
    attribution: { status: "counterexample", rule: "" },
  };
}

/** A recorded start of task `t`: episode `episodeId` began in `state`. */
export function handStart(episodeId: string, state: StateRecord): Start {
  return { taskId: "t", episodeId, observation: { text: "" } as Start["observation"], state };
}
