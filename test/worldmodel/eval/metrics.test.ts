import { describe, expect, it } from "vitest";
import type { Observation, StateRecord } from "../../../src/core/index.ts";
import { createFrozenLakeEnvironment, frozenLakeStateViewer } from "../../../src/envs/frozenlake/index.ts";
import {
  changedFieldAccuracy,
  doublingSizes,
  empiricalDistribution,
  FamilyEvalReportSchema,
  type FidelityReport,
  fieldAccuracy,
  formatFamiliesTable,
  formatFidelityTable,
  formatTvNote,
  frozenLakeTrueDistribution,
  groupTransitions,
  type HeldoutTransition,
  lineEditDistance,
  parseFamilyEvalReport,
  renderTable,
  scoreTransition,
  statesEqual,
  summariseDivergence,
  summariseScores,
  textSimilarity,
  totalVariation,
} from "../../../src/worldmodel/eval/index.ts";
import type { SimulationStep } from "../../../src/worldmodel/runtime/contract.ts";
import type { TraceStep } from "../../../src/worldmodel/trace.ts";

describe("state metrics", () => {
  const before: StateRecord = { a: 1, b: "x", c: [1, 2] };
  it("exact match needs the same paths with the same values (lists item by item)", () => {
    expect(statesEqual({ a: 1, c: [1, 2], b: "x" }, before)).toBe(true);
    expect(statesEqual({ a: 1, b: "x" }, before)).toBe(false);
    expect(statesEqual({ a: 1, b: "x", c: [2, 1] }, before)).toBe(false);
  });
  it("field accuracy is over the union of real and predicted paths", () => {
    // union {a, b, c, d}: a right, b wrong, c right, d only predicted (wrong) → 2/4
    expect(fieldAccuracy({ a: 1, b: "y", c: [1, 2] }, { a: 1, b: "x", c: [1, 2], d: true })).toBe(0.5);
    expect(fieldAccuracy({}, {})).toBe(1);
  });
  it("changed-field accuracy is over the paths changed in reality or in the prediction", () => {
    const real = { a: 2, b: "x", c: [1, 2] };
    // copy changes nothing: of the changed paths {a} it gets 0 right
    expect(changedFieldAccuracy(before, real, before)).toBe(0);
    expect(changedFieldAccuracy(before, real, real)).toBe(1);
    // predicted a=2 (right) and b="z" (a change that did not happen): 1 of {a, b}
    expect(changedFieldAccuracy(before, real, { ...real, b: "z" })).toBe(0.5);
    // a deleted path counts as a change
    expect(changedFieldAccuracy(before, { a: 1, b: "x" }, before)).toBe(0);
    expect(changedFieldAccuracy(before, before, before)).toBeUndefined();
  });
});

describe("text similarity and total variation", () => {
  it("is 1 − line edit distance / longer line count", () => {
    expect(lineEditDistance(["a", "b", "c"], ["a", "c"])).toBe(1);
    expect(lineEditDistance([], ["a", "b"])).toBe(2);
    expect(textSimilarity("a\nb\nc\nd", "a\nX\nc\nd")).toBe(0.75);
    expect(textSimilarity("a\nb", "a\nb\nc\nd")).toBe(0.5);
    expect(textSimilarity("", "")).toBe(1);
    expect(textSimilarity("x", "y")).toBe(0);
  });
  it("TV is half the L1 distance over the union of outcomes", () => {
    const p = new Map([
      ["s1", 0.5],
      ["s2", 0.5],
    ]);
    const q = new Map([
      ["s1", 0.2],
      ["s3", 0.8],
    ]);
    expect(totalVariation(p, q)).toBeCloseTo(0.8, 12);
    expect(totalVariation(p, p)).toBe(0);
    const emp = empiricalDistribution(["s1", "s2", "s1"]);
    expect(emp.get("s1")).toBeCloseTo(2 / 3, 12);
    expect(totalVariation(emp, new Map([["s1", 1]]))).toBeCloseTo(1 / 3, 12);
  });
});

/** A hand-made FrozenLake transition: real observations from the real environment, states given. */
async function handMade(): Promise<{ obs: Observation; next: Observation; task: HeldoutTransition["task"] }> {
  const env = createFrozenLakeEnvironment({ slippery: false });
  const task = env.suite.get("4x4");
  const obs = await env.reset({ taskId: "4x4", seed: 0 });
  const result = await env.step({ type: "move", direction: "right" });
  return { obs, next: result.observation, task };
}

function predicted(state: StateRecord, extra: Partial<SimulationStep> = {}): SimulationStep {
  return {
    state,
    reward: 0,
    terminated: false,
    trace: { system: "full", candidates: [], fired: [], rejected: [], unknown: false },
    ...extra,
  };
}

describe("scoring transitions (hand-made, figures known exactly)", () => {
  it("scores copy, a right prediction and an abstention, and summarises them", async () => {
    const { obs, next, task } = await handMade();
    const before = frozenLakeStateViewer.view(obs, task);
    const after = frozenLakeStateViewer.view(next, task);
    const paths = Object.keys(after).length;
    const step: TraceStep = {
      episodeId: "e",
      taskId: "4x4",
      family: "frozenlake",
      step: 0,
      observation: obs,
      action: { type: "move", direction: "right" },
      nextObservation: next,
      reward: 0,
      terminated: false,
      truncated: false,
      source: "run:test",
    };
    const t: HeldoutTransition = { step, task, before, after };
    const copy = scoreTransition(t, predicted(before), frozenLakeStateViewer);
    expect(copy.exact).toBe(false);
    expect(copy.changed).toBe(0);
    // only agent.col (and the derived map fields stay) differ
    const differing = Object.keys(after).filter(
      (p) => JSON.stringify(after[p]) !== JSON.stringify(before[p]),
    );
    expect(differing).toEqual(["agent.col"]);
    expect(copy.field).toBeCloseTo((paths - 1) / paths, 12);
    expect(copy.text).toBeLessThan(1);
    const right = scoreTransition(t, predicted(after), frozenLakeStateViewer);
    expect(right).toMatchObject({
      exact: true,
      field: 1,
      changed: 1,
      reward: true,
      terminated: true,
      text: 1,
    });
    const unknown = scoreTransition(
      t,
      predicted(before, {
        trace: {
          system: "full",
          candidates: [],
          fired: [],
          rejected: [
            { stage: "validation", reason: "invariant" },
            { stage: "applicability", reason: "contradicted" },
          ],
          unknown: true,
        },
        terminated: true,
      }),
      frozenLakeStateViewer,
    );
    expect(unknown).toMatchObject({ unknown: true, text: 0, terminated: false });
    const s = summariseScores("x", [copy, right, unknown], 0.25);
    expect(s.transitions).toBe(3);
    expect(s.exactMatch).toBeCloseTo(1 / 3, 12);
    expect(s.changedFieldAccuracy).toBeCloseTo(1 / 3, 12);
    expect(s.changedTransitions).toBe(3);
    expect(s.fieldAccuracy).toBeCloseTo(((2 * (paths - 1)) / paths + 1) / 3, 12);
    expect(s.terminationAccuracy).toBeCloseTo(2 / 3, 12);
    expect(s.rewardAccuracy).toBe(1);
    expect(s.unknownRate).toBeCloseTo(1 / 3, 12);
    expect(s.rejections).toEqual({ applicability: 1, proposal: 0, validation: 1 });
    expect(s.textSimilarity).toBeCloseTo((copy.text + 1) / 3, 12);
    expect(s.totalVariation).toBe(0.25);
    // Nothing changed anywhere: changed-field accuracy is not defined (null), not 0 or 1.
    const still = { ...copy, changed: undefined };
    expect(summariseScores("y", [still], 0).changedFieldAccuracy).toBeNull();
  });

  it("groups transitions by task, state and action with their empirical next states", () => {
    const mk = (taskId: string, s: number, dir: string, next: number): HeldoutTransition => ({
      step: { taskId, action: { type: "move", direction: dir } } as unknown as TraceStep,
      task: undefined,
      before: { x: s },
      after: { x: next },
    });
    const groups = groupTransitions([
      mk("t", 0, "up", 1),
      mk("t", 0, "up", 2),
      mk("t", 0, "up", 1),
      mk("u", 0, "up", 1),
      mk("t", 0, "down", 1),
    ]);
    expect(groups.map((g) => g.transitions.length)).toEqual([3, 1, 1]);
    expect([...(groups[0]?.empirical.values() ?? [])].map((p) => p.toFixed(4))).toEqual(["0.6667", "0.3333"]);
  });
});

describe("FrozenLake's true distribution (the noise-floor hook)", () => {
  it("gives the slip model's cell probabilities as viewed states; (0, 2/3) slips only to the right", async () => {
    const { obs, next, task } = await handMade();
    const before = frozenLakeStateViewer.view(obs, task);
    const step = {
      taskId: "4x4",
      observation: obs,
      nextObservation: next,
      action: { type: "move", direction: "down" },
      truncated: false,
    } as unknown as TraceStep;
    const t: HeldoutTransition = { step, task, before, after: before };
    // From (0,0) moving down: intended (1,0); the walker's left is east (0,1); its right is west, a wall.
    const at = (d: ReturnType<ReturnType<typeof frozenLakeTrueDistribution>>) =>
      (d ?? []).map((o) => [o.state["agent.row"], o.state["agent.col"], Number(o.probability.toFixed(6))]);
    expect(at(frozenLakeTrueDistribution({ slippery: true, slipRatio: [0, 1] })(t))).toEqual([
      [1, 0, 0.333333],
      [0, 0, 0.666667],
    ]);
    expect(at(frozenLakeTrueDistribution({ slippery: true })(t))).toEqual([
      [1, 0, 0.333333],
      [0, 1, 0.333333],
      [0, 0, 0.333333],
    ]);
    const moved = frozenLakeTrueDistribution({ slippery: false })(t)?.[0]?.state ?? {};
    expect(statesEqual(moved, { ...before, "agent.row": 1 })).toBe(true);
    expect(frozenLakeTrueDistribution({})({ ...t, step: { ...step, truncated: true } })).toBeUndefined();
  });
});

describe("multi-turn summary", () => {
  it("counts first divergences and per-step consistency over the episodes long enough", () => {
    // lengths 3, 2, 4, 1; first divergence at step 1, never, 0, never
    const r = summariseDivergence("full", [3, 2, 4, 1], [1, undefined, 0, undefined]);
    expect(r.neverDiverged).toBe(0.5);
    expect(r.diverged).toBe(2);
    expect(r.meanFirstDivergence).toBe(0.5);
    expect(r.medianFirstDivergence).toBe(0.5);
    // k=0: 4 episodes, the one diverging at 0 is out → 3/4; k=1: 3 long enough (3, 2, 4), two diverged → 1/3;
    // k=2: lengths 3 and 4, both diverged → 0; k=3: length 4 only, diverged → 0
    expect(r.consistency).toEqual([0.75, 1 / 3, 0, 0]);
    expect(summariseDivergence("copy", [], []).meanFirstDivergence).toBeNull();
  });
});

const system = (name: string, exact: number) => ({
  system: name,
  transitions: 10,
  exactMatch: exact,
  fieldAccuracy: 0.9,
  changedFieldAccuracy: name === "copy" ? 0 : null,
  changedTransitions: 4,
  rewardAccuracy: 1,
  terminationAccuracy: 1,
  textSimilarity: 0.5,
  unknownRate: 0,
  rejections: { applicability: 0, proposal: 0, validation: 0 },
  totalVariation: 0.125,
});
const report: FidelityReport = {
  families: ["frozenlake"],
  transitions: 10,
  episodes: 2,
  tv: { groups: 6, repeatedGroups: 2, meanGroupSize: 10 / 6, noiseFloor: null },
  systems: [system("copy", 0.2), system("full", 0.8)],
};

describe("report tables and schema", () => {
  it("renders markdown and plain tables", () => {
    expect(renderTable(["a", "bb"], [["1", "x|y"]])).toBe("| a | bb |\n| --- | --- |\n| 1 | x\\|y |");
    expect(renderTable(["a", "bb"], [["100", "x"]], "plain")).toBe("a    bb\n---  --\n100  x");
    const md = formatFidelityTable(report, {
      metrics: ["exactMatch", "changedFieldAccuracy", "totalVariation"],
    });
    expect(md.split("\n")).toEqual([
      "| system | n | exact | changed acc | TV |",
      "| --- | --- | --- | --- | --- |",
      "| copy | 10 | 0.200 | 0.000 | 0.125 |",
      "| full | 10 | 0.800 | n/a | 0.125 |",
    ]);
    const families = formatFamiliesTable([{ family: "frozenlake", fidelity: report }], {
      metrics: ["exactMatch"],
      format: "plain",
    });
    expect(families.split("\n")[2]).toBe("frozenlake  copy    10  0.200");
    expect(formatTvNote(report)).toContain(
      "6 (task, state, action) groups (2 with 2+ transitions, mean size 1.67)",
    );
  });
  it("round-trips through JSON and rejects a broken report with a user error", () => {
    const value = { family: "frozenlake", fidelity: report };
    expect(parseFamilyEvalReport(JSON.parse(JSON.stringify(value)))).toEqual(
      FamilyEvalReportSchema.parse(value),
    );
    expect(() =>
      parseFamilyEvalReport({ family: "x", fidelity: { ...report, transitions: -1 } }, "r.json"),
    ).toThrow(/r\.json: fidelity\.transitions/);
  });
  it("learning-curve sizes double up to the total", () => {
    expect(doublingSizes(1)).toEqual([1]);
    expect(doublingSizes(5)).toEqual([1, 2, 4, 5]);
    expect(doublingSizes(8)).toEqual([1, 2, 4, 8]);
  });
});
