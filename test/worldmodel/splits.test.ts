import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import {
  SplitManifestSchema,
  splitCounts,
  splitTraces,
  type TraceSplit,
  type TraceStep,
} from "../../src/worldmodel/index.ts";

/** `episodes` episodes spread over `tasks` tasks, each of 1 to 3 steps. */
function traces(episodes: number, tasks: number): TraceStep[] {
  const steps: TraceStep[] = [];
  for (let e = 0; e < episodes; e++) {
    for (let i = 0; i <= e % 3; i++)
      steps.push({
        episodeId: `ep_${String(e).padStart(3, "0")}`,
        taskId: `task_${e % tasks}`,
        family: "frozenlake",
        step: i,
        observation: { text: `${e}.${i}` },
        action: { type: "move", direction: "down" },
        nextObservation: { text: `${e}.${i + 1}` },
        reward: 0,
        terminated: false,
        truncated: false,
        source: "run:r",
      });
  }
  return steps;
}

const SPLITS: TraceSplit[] = ["build", "validation", "test"];

/** Which split each group (episode or task) is in; fails when a group is in two. */
function owner(
  split: ReturnType<typeof splitTraces>,
  key: (s: TraceStep) => string,
): Map<string, TraceSplit> {
  const out = new Map<string, TraceSplit>();
  for (const name of SPLITS)
    for (const s of split.steps[name]) {
      const seen = out.get(key(s));
      expect(seen === undefined || seen === name, `${key(s)} is in ${seen} and ${name}`).toBe(true);
      out.set(key(s), name);
    }
  return out;
}

describe("splitTraces", () => {
  const steps = traces(200, 20);

  it("puts whole episodes in one split, keeps every step once, and roughly honours the fractions", () => {
    const split = splitTraces(steps, { seed: 7 });
    const episodes = owner(split, (s) => s.episodeId);
    expect(episodes.size).toBe(200);
    expect(SPLITS.reduce((n, s) => n + split.steps[s].length, 0)).toBe(steps.length);
    expect(split.manifest.episodes.build).toHaveLength(140);
    expect(split.manifest.episodes.validation).toHaveLength(30);
    expect(split.manifest.episodes.test).toHaveLength(30);
    for (const name of SPLITS) {
      expect(split.manifest.episodes[name]).toEqual([...split.manifest.episodes[name]].sort());
      for (const id of split.manifest.episodes[name]) expect(episodes.get(id)).toBe(name);
      // Steps keep the input order inside a split.
      const order = split.steps[name].map((s) => steps.indexOf(s));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    expect(SplitManifestSchema.parse(split.manifest)).toEqual(split.manifest);
    expect(split.manifest).toMatchObject({
      seed: 7,
      groupBy: "episode",
      fractions: { build: 0.7, validation: 0.15, test: 0.15 },
    });
  });

  it("same seed, same split (whatever the input order); another seed, another split", () => {
    const a = splitTraces(steps, { seed: "s1" });
    const b = splitTraces([...steps].reverse(), { seed: "s1" });
    expect(b.manifest).toEqual(a.manifest);
    const c = splitTraces(steps, { seed: "s2" });
    expect(c.manifest.episodes.test).not.toEqual(a.manifest.episodes.test);
  });

  it("groupBy task keeps every task in one split and lists its episodes", () => {
    const split = splitTraces(steps, {
      seed: 1,
      groupBy: "task",
      fractions: { build: 0.5, validation: 0.25, test: 0.25 },
    });
    const tasks = owner(split, (s) => s.taskId);
    expect(tasks.size).toBe(20);
    expect(split.manifest.groups.build).toHaveLength(10);
    expect(split.manifest.groups.validation).toHaveLength(5);
    expect(split.manifest.groups.test).toHaveLength(5);
    const episodes = owner(split, (s) => s.episodeId);
    for (const name of SPLITS)
      expect(split.manifest.episodes[name]).toHaveLength(
        [...episodes.values()].filter((v) => v === name).length,
      );
  });

  it("few groups: largest remainders, and every split with a positive fraction gets one when it can", () => {
    expect(splitCounts(3, { build: 0.7, validation: 0.15, test: 0.15 })).toEqual({
      build: 1,
      validation: 1,
      test: 1,
    });
    expect(splitCounts(10, { build: 0.7, validation: 0.15, test: 0.15 })).toEqual({
      build: 7,
      validation: 2,
      test: 1,
    });
    expect(splitCounts(1, { build: 0.7, validation: 0.15, test: 0.15 })).toEqual({
      build: 1,
      validation: 0,
      test: 0,
    });
    expect(splitCounts(4, { build: 1, validation: 0, test: 0 })).toEqual({
      build: 4,
      validation: 0,
      test: 0,
    });
    expect(splitTraces([], { seed: 1 }).manifest.episodes).toEqual({ build: [], validation: [], test: [] });
  });

  it("invalid options are a user error naming the issue", () => {
    for (const options of [
      { seed: 1, fractions: { build: 0.5, validation: 0.2, test: 0.2 } },
      { seed: 1, fractions: { build: 0, validation: 0.5, test: 0.5 } },
      { seed: 1, groupBy: "run" },
    ]) {
      try {
        splitTraces(steps, options as never);
        expect.unreachable("should have thrown");
      } catch (error) {
        expect(error).toBeInstanceOf(UserError);
        expect((error as UserError).code).toBe("trace.split_options");
        expect((error as UserError).message).toMatch(/fractions|groupBy/);
      }
    }
  });
});
