import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { generatorByName } from "../../src/noise/index.ts";
import {
  type CurationSpec,
  curatedTaskIds,
  curateTasks,
  curationDecision,
  curationTaskError,
  difficultyOf,
  groupNoiseSchedule,
  measureOracleLengths,
  parseCurationThresholds,
  readCurationManifest,
} from "../../src/rl/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-curation-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = (o: Partial<CurationSpec> = {}): CurationSpec => ({
  env: "frozenlake",
  suite: "builtin",
  policy: "random",
  episodes: 20,
  seed: "s",
  run: "run_x",
  thresholds: parseCurationThresholds({}),
  ...o,
});
const rate = (taskId: string, successes: number, episodes = 20) => ({ taskId, episodes, successes });

describe("curation", () => {
  it("drops tasks above max and below min; a rate exactly on a threshold is kept", () => {
    const t = parseCurationThresholds({});
    expect(t).toEqual({ max: 0.8, min: 0.05 });
    expect(curationDecision(0.8, t)).toBe("kept");
    expect(curationDecision(0.05, t)).toBe("kept");
    expect(curationDecision(0.85, t)).toBe("above_max");
    expect(curationDecision(0.0499, t)).toBe("below_min");
    expect(curationDecision(null, t)).toBe("no_episodes");
    // 16/20 = 0.8 and 1/20 = 0.05 sit on the thresholds; 17/20 and 0/20 fall outside; 0 episodes: no rate.
    const m = curateTasks(
      [rate("a", 16), rate("b", 1), rate("c", 17), rate("d", 0), rate("e", 0, 0), rate("f", 10)],
      spec(),
    );
    expect(m.kept.map((k) => [k.taskId, k.rate])).toEqual([
      ["a", 0.8],
      ["b", 0.05],
      ["f", 0.5],
    ]);
    expect(m.dropped.map((d) => [d.taskId, d.reason])).toEqual([
      ["c", "above_max"],
      ["d", "below_min"],
      ["e", "no_episodes"],
    ]);
    expect(m.sample).toEqual({ size: null, tasks: ["a", "b", "f"] });
    expect(m.thresholds).toEqual({ max: 0.8, min: 0.05 });
    // Custom thresholds move the boundary.
    const wide = curateTasks(
      [rate("c", 17), rate("d", 0)],
      spec({ thresholds: parseCurationThresholds({ max: 1, min: 0 }) }),
    );
    expect(wide.kept.map((k) => k.taskId)).toEqual(["c", "d"]);
  });

  it("validates thresholds: rates in [0, 1] with min ≤ max", () => {
    expect(() => parseCurationThresholds({ max: 1.5 })).toThrow(/curation\.max/);
    expect(() => parseCurationThresholds({ min: -0.1 })).toThrow(/curation\.min/);
    expect(() => parseCurationThresholds({ min: 0.6, max: 0.5 })).toThrow(/min must be ≤ max/);
    expect(() => parseCurationThresholds({ mx: 0.5 })).toThrow(UserError);
  });

  it("takes a seeded sample of N kept tasks: the same seed the same sample, in suite order", () => {
    const rates = Array.from({ length: 12 }, (_, i) => rate(`t${String(i).padStart(2, "0")}`, 5));
    const a = curateTasks(rates, spec({ sample: 4, seed: "7" }));
    const again = curateTasks(rates, spec({ sample: 4, seed: "7" }));
    expect(a.sample.size).toBe(4);
    expect(a.sample.tasks).toHaveLength(4);
    expect(again.sample.tasks).toEqual(a.sample.tasks);
    expect([...a.sample.tasks].sort()).toEqual(a.sample.tasks); // suite order
    const others = ["1", "2", "3", "4", "5"].map(
      (s) => curateTasks(rates, spec({ sample: 4, seed: s })).sample.tasks,
    );
    expect(others.some((t) => JSON.stringify(t) !== JSON.stringify(a.sample.tasks))).toBe(true);
    // N beyond the kept count keeps them all.
    expect(curateTasks(rates.slice(0, 3), spec({ sample: 10 })).sample.tasks).toHaveLength(3);
  });

  it("reads a manifest back; refuses a missing, malformed or invalid one and an empty sample", () => {
    const m = curateTasks([rate("4x4", 5), rate("8x8", 20)], spec());
    const good = join(dir, "good.json");
    writeFileSync(good, JSON.stringify(m));
    expect(readCurationManifest(good)).toEqual(m);
    expect(curatedTaskIds(m, good)).toEqual(["4x4"]);
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return `${(e as UserError).code} ${(e as Error).message}`;
      }
      return "no error";
    };
    expect(code(() => readCurationManifest(join(dir, "none.json")))).toMatch(
      /^rl\.curation_invalid cannot read/,
    );
    const broken = join(dir, "broken.json");
    writeFileSync(broken, "{not json");
    expect(code(() => readCurationManifest(broken))).toMatch(/^rl\.curation_invalid/);
    const invalid = join(dir, "invalid.json");
    writeFileSync(invalid, JSON.stringify({ ...m, thresholds: { max: 2, min: 0 } }));
    expect(code(() => readCurationManifest(invalid))).toMatch(/^rl\.curation_invalid .*thresholds\.max/);
    const extra = join(dir, "extra.json");
    writeFileSync(extra, JSON.stringify({ ...m, tasks: [] }));
    expect(code(() => readCurationManifest(extra))).toMatch(/^rl\.curation_invalid/);
    const none = curateTasks([rate("8x8", 20)], spec());
    expect(code(() => curatedTaskIds(none, "x.json"))).toMatch(/^rl\.curation_empty/);
  });

  it("names the manifest when the suite refuses one of its tasks", () => {
    const env = createFrozenLakeEnvironment({});
    let refusal: unknown;
    try {
      env.suite.get("no-such-map");
    } catch (e) {
      refusal = e;
    }
    const e = curationTaskError(refusal, "c.json") as UserError;
    expect(e.code).toBe("rl.curation_unknown_tasks");
    expect(e.message).toMatch(/c\.json names a task .*no-such-map/);
    const other = new UserError("other", "x");
    expect(curationTaskError(other, "c.json")).toBe(other);
  });
});

describe("hard subset", () => {
  it("classifies by oracle length: ≥ 5 steps hard, fewer easy, no length unknown (never easy)", () => {
    expect(difficultyOf(5)).toBe("hard");
    expect(difficultyOf(14)).toBe("hard");
    expect(difficultyOf(4)).toBe("easy");
    expect(difficultyOf(1)).toBe("easy");
    expect(difficultyOf(null)).toBe("unknown");
    expect(difficultyOf(undefined)).toBe("unknown");
    expect(difficultyOf(4, 4)).toBe("hard");
  });

  it("measures the oracle's length by playing it; unsolved or no oracle is unknown", async () => {
    const still = createFrozenLakeEnvironment({ slippery: false });
    const tasks = ["4x4", "8x8"].map((id) => still.suite.get(id));
    expect(await measureOracleLengths(still, tasks, () => 7, 50)).toEqual({ "4x4": 6, "8x8": 14 });
    // A cap below the oracle's length: it does not solve the task, so the length is unknown.
    expect(await measureOracleLengths(still, tasks, () => 7, 5)).toEqual({ "4x4": null, "8x8": null });
    // A task without an oracle is unknown.
    const [first] = tasks;
    if (!first) throw new Error("no task");
    const { oracle: _oracle, ...bare } = first;
    expect(await measureOracleLengths(still, [bare], () => 7, 50)).toEqual({ "4x4": null });
    await still.close();
  });
});

describe("rl noise schedule", () => {
  it("is drawn from the task and the group seed: equal for a group, from the train generators", () => {
    const a = groupNoiseSchedule("click-button", 1234, 0.5, 10);
    expect(a.length).toBeGreaterThanOrEqual(3);
    expect(groupNoiseSchedule("click-button", 1234, 0.5, 10)).toEqual(a);
    expect(groupNoiseSchedule("click-button", 99, 0.5, 10)).not.toEqual(a);
    expect(groupNoiseSchedule("click-button", 1234, 0.05, 10)).toEqual([]); // s < 0.10: no event
    expect(a.every((e) => e.step <= 9 && generatorByName(e.generator)?.heldOut === false)).toBe(true);
  });
});
