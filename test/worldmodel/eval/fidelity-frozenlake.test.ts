import { beforeAll, describe, expect, it } from "vitest";
import { createFrozenLakeEnvironment, frozenLakeStateViewer } from "../../../src/envs/frozenlake/index.ts";
import { createMemoryStore } from "../../../src/store/index.ts";
import {
  evaluateAblations,
  evaluateFidelity,
  evaluateMultiTurn,
  type FidelityReport,
  formatLearningCurveTable,
  frozenLakeTrueDistribution,
  groupTransitions,
  heldoutTransition,
  learningCurve,
  learningCurveSvg,
  stateKey,
  statesEqual,
} from "../../../src/worldmodel/eval/index.ts";
import {
  buildWorldbook,
  importTraces,
  splitTraces,
  type TraceStep,
  type Worldbook,
} from "../../../src/worldmodel/index.ts";
import { recordFrozenLakeRun } from "../traces-helpers.ts";

const task = createFrozenLakeEnvironment({ slippery: true }).suite.get("4x4");
const tasks = [task];
const viewer = frozenLakeStateViewer;
let build: TraceStep[];
let test: TraceStep[];
let book: Worldbook;
let report: FidelityReport;

const bySystem = (r: FidelityReport, name: string) => {
  const s = r.systems.find((x) => x.system === name);
  if (!s) throw new Error(`no ${name}`);
  return s;
};

beforeAll(async () => {
  const store = createMemoryStore();
  await recordFrozenLakeRun(store, { runId: "run_eval", taskIds: ["4x4"], episodes: 160, slippery: true });
  const { steps } = importTraces(store, ["run_eval"], { viewer, tasks });
  const split = splitTraces(steps, { seed: "eval", fractions: { build: 0.7, validation: 0, test: 0.3 } });
  build = split.steps.build;
  test = split.steps.test;
  book = buildWorldbook(build, {}, { tasks });
  report = await evaluateFidelity(book, test, {
    viewer,
    tasks,
    trueDistribution: frozenLakeTrueDistribution({ slippery: true }),
  });
}, 300_000);

describe("fidelity on slippery FrozenLake (real traces)", () => {
  it("scores all five systems on every held-out transition", () => {
    expect(report.systems.map((s) => s.system)).toEqual(["copy", "retrieval", "rules", "gates", "full"]);
    for (const s of report.systems) expect(s.transitions).toBe(test.length);
    expect(report.transitions).toBe(test.length);
    expect(report.families).toEqual(["frozenlake"]);
    expect(report.tv.repeatedGroups).toBeGreaterThan(0);
  });

  it("copy's figures are the ones its definition gives (checked independently)", () => {
    const copy = bySystem(report, "copy");
    const transitions = test.map((s) => heldoutTransition(s, new Map([[task.id, task]]), viewer));
    const unchanged = transitions.filter((t) => statesEqual(t.before, t.after)).length;
    expect(copy.exactMatch).toBeCloseTo(unchanged / test.length, 12);
    expect(copy.changedFieldAccuracy).toBe(0);
    expect(copy.changedTransitions).toBe(test.length - unchanged);
    expect(copy.rewardAccuracy).toBeCloseTo(test.filter((s) => s.reward === 0).length / test.length, 12);
    expect(copy.terminationAccuracy).toBeCloseTo(test.filter((s) => !s.terminated).length / test.length, 12);
    // copy puts probability 1 on the current state: TV per group is 1 − the share that stayed put.
    let weighted = 0;
    for (const g of groupTransitions(transitions)) {
      const first = g.transitions[0];
      weighted += g.transitions.length * (1 - (g.empirical.get(stateKey(first?.before ?? {})) ?? 0));
    }
    expect(copy.totalVariation).toBeCloseTo(weighted / test.length, 12);
  });

  // Field accuracy need not favour full here: a wrong argmax slip gets row, col and status wrong where copy
  // gets only the one moved coordinate wrong — which is why changed-field accuracy is reported beside it.
  it("full beats copy on changed fields and TV, and is at least as exact", () => {
    const copy = bySystem(report, "copy");
    const full = bySystem(report, "full");
    expect(full.changedFieldAccuracy ?? 0).toBeGreaterThan(0);
    expect(full.exactMatch).toBeGreaterThanOrEqual(copy.exactMatch);
    expect(full.totalVariation).toBeLessThan(copy.totalVariation);
  });

  it("the true-distribution hook covers every real next state and gives a noise floor below copy's TV", () => {
    const hook = frozenLakeTrueDistribution({ slippery: true });
    const index = new Map([[task.id, task]]);
    for (const s of test) {
      const t = heldoutTransition(s, index, viewer);
      const truth = hook(t);
      if (truth === undefined) {
        expect(s.truncated).toBe(true);
        continue;
      }
      expect(truth.reduce((a, o) => a + o.probability, 0)).toBeCloseTo(1, 12);
      const support = truth.filter((o) => o.probability > 0).map((o) => stateKey(o.state));
      expect(support).toContain(stateKey(t.after));
    }
    const floor = report.tv.noiseFloor;
    expect(floor).not.toBeNull();
    expect(floor ?? 1).toBeGreaterThan(0);
    expect(floor ?? 1).toBeLessThan(bySystem(report, "copy").totalVariation);
  });
});

describe("multi-turn, ablations and the learning curve (real traces)", () => {
  it("open-loop copy diverges where the real episode first leaves its start state", async () => {
    const copy = await evaluateMultiTurn(book, test, { system: "copy", viewer, tasks });
    const full = await evaluateMultiTurn(book, test, { system: "full", viewer, tasks });
    const episodes = [...new Set(test.map((s) => s.episodeId))];
    expect(copy.episodes).toBe(episodes.length);
    const firsts = episodes.map((id) => {
      const steps = test.filter((s) => s.episodeId === id).sort((a, b) => a.step - b.step);
      const start = stateKey(steps[0]?.state ?? {});
      const k = steps.findIndex((s) => stateKey(s.nextState ?? {}) !== start);
      return k < 0 ? undefined : k;
    });
    const diverged = firsts.filter((k): k is number => k !== undefined);
    expect(copy.diverged).toBe(diverged.length);
    expect(copy.meanFirstDivergence).toBeCloseTo(diverged.reduce((a, b) => a + b, 0) / diverged.length, 12);
    expect(full.consistency[0]).toBeGreaterThanOrEqual(copy.consistency[0] ?? 0);
    for (const r of [copy, full]) {
      for (let k = 1; k < r.consistency.length; k++) expect(r.consistency[k]).toBeLessThanOrEqual(1);
    }
  });

  it("ablations: the three variants, 'both' being the full system", async () => {
    const ablations = await evaluateAblations(book, test, { viewer, tasks });
    expect(ablations.variants.map((v) => v.variant)).toEqual(["evidence-only", "abstractions-only", "both"]);
    const both = ablations.variants[2]?.fidelity;
    expect({ ...both, system: "full" }).toEqual(bySystem(report, "full"));
    for (const v of ablations.variants) expect(v.fidelity.transitions).toBe(test.length);
  });

  it("learning curve: copy is flat, full improves from one episode to all", async () => {
    const total = new Set(build.map((s) => s.episodeId)).size;
    const curve = await learningCurve(build, test, {
      seed: 7,
      sizes: [1, 8, total, total + 5],
      viewer,
      tasks,
    });
    expect(curve.points.map((p) => p.episodes)).toEqual([1, 8, total]);
    expect(curve.points[2]?.transitions).toBe(build.length);
    const metric = (i: number, name: string) => curve.points[i]?.systems.find((s) => s.system === name);
    for (let i = 0; i < 3; i++) expect(metric(i, "copy")).toEqual(bySystem(report, "copy"));
    expect(metric(2, "full")).toEqual(bySystem(report, "full"));
    expect(metric(2, "full")?.totalVariation ?? 1).toBeLessThanOrEqual(
      metric(0, "full")?.totalVariation ?? 0,
    );
    const again = await learningCurve(build, test, { seed: 7, sizes: [1], viewer, tasks });
    expect(again.order).toEqual(curve.order);
    const svg = learningCurveSvg(curve);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain(">full<");
    expect(formatLearningCurveTable(curve).split("\n")).toHaveLength(5);
  });
});
