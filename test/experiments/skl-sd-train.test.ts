import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PolicyContext, Task } from "../../src/core/index.ts";
import { SHARED_MOVES } from "../../src/envs/frozenlake/episode.ts";
import { mapDigest } from "../../src/envs/frozenlake/map.ts";
import { runSklSdPipeline } from "../../src/experiments/frozenlake/sd-pipeline.ts";
import { actingExamples, reflectExamples } from "../../src/experiments/skl-sd-train/examples.ts";
import { runSklSdTrainExperiment } from "../../src/experiments/skl-sd-train/experiment.ts";
import { experimentMaps } from "../../src/experiments/skl-sd-train/maps.ts";
import { SklSdResultsSchema } from "../../src/experiments/skl-sd-train/results.ts";
import { frozenLakeFeatures } from "../../src/policies/trainable/frozenlake-features.ts";
import { runMain } from "../cli/run-cli.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-sd-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function gridContext(text: string): PolicyContext {
  const task = {
    id: "t",
    family: "frozenlake",
    instruction: "walk",
    seed: 0,
    split: "train",
  } as unknown as Task;
  return { task, observation: { text, legalActions: [...SHARED_MOVES] }, history: [], stepIndex: 0 };
}

describe("local FrozenLake features of the linear policy", () => {
  it("name the tile a move leads to, the holes a slip reaches and the goal direction", () => {
    // P at (1,1): a hole to the left, the goal below-right, a wall above the top row is two rows up.
    const ctx = gridContext("____\nOP__\n__O_\n___G\nPosition (row, col): (1, 1)");
    const f = (direction: "left" | "down" | "right" | "up") =>
      Object.fromEntries(frozenLakeFeatures(ctx, { type: "move", direction }));
    expect(f("left")).toMatchObject({ "fl:dest=O": 1, "fl:slip-holes=0": 1, "fl:goal=away": 1 });
    // Moving down: a slip goes left (a hole) or right (frozen).
    expect(f("down")).toMatchObject({ "fl:dest=_": 1, "fl:slip-holes=1": 1, "fl:goal=toward": 1 });
    expect(f("right")).toMatchObject({ "fl:dest=_|goal=toward": 1, "fl:slip-holes=0": 1 });
    const corner = gridContext("P___\n____\n___G");
    expect(Object.fromEntries(frozenLakeFeatures(corner, { type: "move", direction: "up" }))).toMatchObject({
      "fl:dest=#": 1,
      "fl:goal=away": 1,
    });
    // A non-grid observation has no local features.
    expect(frozenLakeFeatures(gridContext("no grid here"), { type: "move", direction: "up" })).toEqual([]);
  });
});

describe("SKL-SD records as SFT examples", () => {
  it("acting records keep the prompt's grid and the episode's history; reflect records give the best action", async () => {
    const out = tempDir();
    const pipeline = await runSklSdPipeline({ maps: 6, iterations: 6, seed: 1, outDir: out });
    const { suite } = experimentMaps(5, 6, 2);
    const distill = actingExamples(suite, pipeline.records.distill, 0.5);
    expect(distill.length).toBe(pipeline.records.distill.length);
    expect(distill.length).toBeGreaterThan(0);
    distill.forEach((e, i) => {
      const r = pipeline.records.distill[i];
      expect(e.weight).toBe(0.5);
      expect(r?.messages[1]?.content).toContain(e.context.observation.text);
      expect(e.context.history.length).toBe(r?.metadata.step);
      expect(e.target).toEqual({ type: "move", direction: r?.metadata.action });
    });
    const reflect = reflectExamples(suite, pipeline.records.reflect, 1);
    expect(reflect.length).toBeGreaterThan(0);
    for (const e of reflect) expect(e.context.observation.text).toMatch(/P/);
  });

  it("held-out maps are never training maps", () => {
    const maps = experimentMaps(5, 40, 40);
    const train = new Set(maps.trainIds.map((id) => mapDigest(maps.suite.map(id).rows)));
    expect(maps.heldoutIds).toHaveLength(40);
    for (const id of maps.heldoutIds) expect(train.has(mapDigest(maps.suite.map(id).rows))).toBe(false);
  });
});

describe("rehearsal experiment skl-sd --scale small", () => {
  it("prints the table, writes a valid results.json and an SVG; pass@1 comes from the episodes played", async () => {
    const out = tempDir();
    const r = await runMain(["experiment", "skl-sd", "--scale", "small", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("held-out pass@1");
    expect(r.stdout).toMatch(/base\+distill\+reflect/);
    const results = SklSdResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    expect(readFileSync(join(out, "pass1.svg"), "utf8")).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const { maps, evalEpisodes, seeds } = results.config as {
      maps: number;
      evalEpisodes: number;
      seeds: number[];
    };
    expect(results.status).toBe("complete");
    expect(results.rows).toHaveLength(7 * seeds.length);
    for (const row of results.rows) {
      expect(row.train.episodes).toBe(maps * evalEpisodes);
      expect(row.heldout.maps).toBe(results.maps.heldout.length);
      expect(row.heldout.pass1).toBeCloseTo(row.heldout.successes / row.heldout.episodes, 12);
    }
    for (const d of results.data) {
      expect(existsSync(join(d.dataDir, "d_base.jsonl"))).toBe(true);
      const of = (mix: string) => results.rows.find((x) => x.seed === d.seed && x.mix === mix);
      // The mixes nest: each adds one dataset to the one before.
      expect(of("base")?.examples).toEqual({ base: d.records.base, distill: 0, reflect: 0 });
      expect(of("base+distill")?.examples).toEqual({
        base: d.records.base,
        distill: d.records.distill,
        reflect: 0,
      });
      expect(of("base+distill+reflect")?.examples.reflect).toBe(d.reflectProjected);
      // The controls borrow the other seed's D_base first.
      expect(d.control.fromSeeds).toEqual(seeds.filter((s) => s !== d.seed));
    }
    // Real episodes: the environment's shortest-path oracle beats the uniform random policy.
    const mean = (mix: string) => results.summary.find((s) => s.mix === mix)?.trainMean ?? 0;
    expect(mean("oracle")).toBeGreaterThan(mean("random"));
  }, 240_000);
});

describe("the data-size controls", () => {
  it("train on as many examples, of the same total weight, as the mix they match, all from D_base", async () => {
    const out = tempDir();
    const r = await runMain([
      "--json",
      "experiment",
      "skl-sd",
      "--scale",
      "small",
      "--maps",
      "12",
      "--iterations",
      "4",
      "--slip",
      "none",
      "--seeds",
      "0",
      // Weights other than 1: the controls' extra examples carry the weights of those they stand for.
      "--lambda1",
      "0.5",
      "--lambda2",
      "2",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = SklSdResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    const [d] = results.data;
    if (!d) throw new Error("no seed data");
    // This configuration has D_distill and D_reflect, so the controls need extra D_base.
    expect(d.records.distill).toBeGreaterThan(0);
    expect(d.reflectProjected).toBeGreaterThan(0);
    expect(d.control.matched).toBe(true);
    expect(d.control.needed).toBe(d.records.distill + d.reflectProjected);
    expect(d.control.baseRecords).toBeGreaterThanOrEqual(d.control.needed);
    const row = (mix: string) => results.rows.find((x) => x.mix === mix);
    const total = (mix: string) => {
      const e = row(mix)?.examples;
      return e ? e.base + e.distill + e.reflect + (e.extraBase ?? 0) : -1;
    };
    for (const [control, mix] of [
      ["base+base(=distill)", "base+distill"],
      ["base+base(=distill+reflect)", "base+distill+reflect"],
    ] as const) {
      expect(total(control)).toBe(total(mix));
      expect(row(control)?.totalWeight).toBeCloseTo(row(mix)?.totalWeight ?? -1, 9);
      // Only D_base: the same D_base as the mix, the rest extra D_base from the new pipeline runs.
      expect(row(control)?.examples).toMatchObject({ base: d.records.base, distill: 0, reflect: 0 });
    }
    // One seed: nothing to borrow, so the extra D_base comes from pipeline runs with new seeds (files kept).
    expect(d.control.fromSeeds).toEqual([]);
    expect(d.control.pipelineSeeds.length).toBeGreaterThan(0);
    for (let k = 1; k <= d.control.pipelineSeeds.length; k++)
      expect(existsSync(join(d.dataDir, `control-${k}`, "d_base.jsonl"))).toBe(true);
  }, 240_000);
});

describe("rehearsal experiment skl-sd with bad options", () => {
  it("is a user error (exit 2) naming the option", async () => {
    const r = await runMain(["experiment", "skl-sd", "--scale", "huge", "--out", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/scale/);
  });
});

describe("determinism", () => {
  it("the same options and seed give the same results", async () => {
    const options = { maps: 4, heldoutMaps: 2, iterations: 3, evalEpisodes: 2, seeds: [3], epochs: 20 };
    const a = await runSklSdTrainExperiment({ ...options, outDir: tempDir() });
    const b = await runSklSdTrainExperiment({ ...options, outDir: tempDir() });
    expect(b.results.rows).toEqual(a.results.rows);
    expect(b.table).toBe(a.table);
  }, 120_000);
});
