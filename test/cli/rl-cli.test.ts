import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import {
  type CurationManifest,
  CurationManifestSchema,
  type RolloutGroupsReport,
  type rolloutMetrics,
  TrlRlRecordSchema,
} from "../../src/rl/index.ts";
import { worldbookDefaultsFor } from "../../src/worldmodel/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { lakeRolloutGroups, plainRun } from "./rl-helpers.ts";
import { json, runMain } from "./run-cli.ts";
import { recordRunWorldbook } from "./worldmodel-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-rlcli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = join(dir, "store");

interface RolloutsOut {
  runId: string;
  status: string;
  summary: { episodes: number; rl: RolloutGroupsReport };
}

/** `rehearsal --json rl rollouts` of the random policy on FrozenLake `tasks`, groups of `group`. */
const rollouts = (tasks: string, group: number, extra: string[] = []) =>
  lakeRolloutGroups({ store, tasks, group, extra });
/** `rehearsal rl rollouts --env frozenlake ...args --store store` (no --json: errors go to stderr). */
const lakeRollouts = (...args: string[]) =>
  runMain(["rl", "rollouts", "--env", "frozenlake", ...args, "--store", store]);

/** A successful `--wm ... --wm-cap 2` run: the wrapped policy, some WM calls, at most 2 per step. */
function expectLookahead(r: Awaited<ReturnType<typeof runMain>>): void {
  expect(r.code, r.stderr).toBe(0);
  const out = json<RolloutsOut & { policy: string }>(r);
  expect(out.policy).toBe("wm-lookahead(random)");
  for (const m of out.summary.rl.groups[0]?.members ?? []) {
    expect(m.wmCalls).toBeGreaterThan(0);
    expect(m.wmCalls).toBeLessThanOrEqual(2 * m.length);
  }
}

/** Two groups of four, twelve steps at most, seeded. */
const seededRollouts = (seed: string) => rollouts("4x4,8x8", 4, ["--t-max", "12", "--seed", seed]);

shareBrowserAcrossFile();

describe("rehearsal rl", () => {
  let runId = "";

  it("rl rollouts on FrozenLake stores an rl run of scored groups with rewards and advantages", async () => {
    const r = await seededRollouts("11");
    expect(r.code, r.stderr).toBe(0);
    const out = json<RolloutsOut>(r);
    runId = out.runId;
    expect(out.status).toBe("complete");
    expect(out.summary.episodes).toBe(8);
    const { rl } = out.summary;
    expect(rl.options).toMatchObject({ group: 4, minGroup: 2, tMax: 12, rewards: { gamma: 0.1 } });
    expect(rl.groups.map((g) => [g.taskId, g.members.length])).toEqual([
      ["4x4", 4],
      ["8x8", 4],
    ]);
    for (const g of rl.groups) {
      expect(g.groupId).toBe(`${runId}:${g.taskId}`);
      expect(g.members.every((m) => m.length <= 12 && Number.isFinite(m.reward))).toBe(true);
      expect(Math.abs(g.members.reduce((a, m) => a + m.advantage, 0))).toBeLessThan(1e-9);
    }
    const list = json<{ runs: Array<{ id: string; kind: string }> }>(
      await runMain(["--json", "runs", "list", "--kind", "rl", "--store", store]),
    );
    expect(list.runs.map((x) => x.id)).toContain(runId);

    // The same seed plays the same groups: the same rewards and advantages.
    const again = json<RolloutsOut>(await seededRollouts("11"));
    const scores = (x: RolloutsOut) =>
      x.summary.rl.groups.map((g) => g.members.map((m) => [m.reward, m.advantage]));
    expect(scores(again)).toEqual(scores(out));
  });

  it("prints the group table without --json", async () => {
    const r = await lakeRollouts("--tasks", "4x4", "--group", "2");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/mean R/);
    expect(r.stdout).toMatch(/1 group scored, 0 dropped/);
  });

  it("rl export writes TRL rows that validate and read back, byte-identical on a second export", async () => {
    const out = join(dir, "trl.jsonl");
    const r = await runMain(["--json", "rl", "export", "--run", runId, "--out", out, "--store", store]);
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ records: number }>(r).records).toBe(8);
    const text = readFileSync(out, "utf8");
    const rows = text
      .trim()
      .split("\n")
      .map((l) => TrlRlRecordSchema.parse(JSON.parse(l)));
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row.prompt.map((m) => m.role)).toEqual(["system", "user"]);
      expect(row.completion[0]?.role).toBe("assistant");
      expect(row.completion.filter((m) => m.role === "assistant")).toHaveLength(row.length);
      expect(row.group_id).toBe(`${runId}:${row.task_id}`);
    }
    const second = join(dir, "trl2.jsonl");
    expect((await runMain(["rl", "export", "--run", runId, "--out", second, "--store", store])).code).toBe(0);
    expect(readFileSync(second, "utf8")).toBe(text);
  });

  it("--wm perfect wraps the policy in wm-lookahead: its WM calls are counted per trajectory", async () => {
    expectLookahead(await rollouts("4x4", 3, ["--wm", "perfect", "--wm-cap", "2"]));
    const bad = await lakeRollouts("--wm", "oracle");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--wm perfect/);
  });

  it("--wm worldbook:DIR asks a worldbook built from recorded traces; a missing book is refused first", async () => {
    const book = join(dir, "book");
    await recordRunWorldbook({
      runArgs: "--env frozenlake --tasks 4x4 --policy random --episodes 20 --seed w".split(" "),
      store,
      book,
      viewer: frozenLakeStateViewer,
      options: worldbookDefaultsFor(["frozenlake"]),
    });
    expectLookahead(await rollouts("4x4", 3, ["--wm", `worldbook:${book}`, "--wm-cap", "2"]));
    const missing = await rollouts("4x4", 3, ["--wm", `worldbook:${join(dir, "no-book")}`]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toMatch(/worldbook\.invalid/);
  });

  it("rejects bad options and a run that is not an rl run as user errors (exit 2)", async () => {
    const bad = await lakeRollouts("--gamma", "-1");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--gamma/);
    const plain = await plainRun(store);
    const notRl = await runMain([
      "rl",
      "export",
      "--run",
      plain,
      "--out",
      join(dir, "x.jsonl"),
      "--store",
      store,
    ]);
    expect(notRl.code).toBe(2);
    expect(notRl.stderr).toMatch(/is a run run/);
  });

  describe("curation, hard subset and noise flags", () => {
    const still = join(dir, "still.yaml");
    writeFileSync(still, "env: frozenlake\nenvOptions: {slippery: false}\n");
    const curate = (out: string, extra: string[]) =>
      runMain([
        "--json",
        "rl",
        "curate",
        "--config",
        still,
        "--tasks",
        "4x4,8x8",
        "--episodes",
        "3",
        "--out",
        out,
        ...extra,
        "--store",
        store,
      ]);

    it("rl curate writes a validated manifest; rl rollouts --curation plays only its sample and records it", async () => {
      const out = join(dir, "curation.json");
      const r = await curate(out, [
        "--policy",
        "random",
        "--min",
        "0",
        "--max",
        "1",
        "--sample",
        "1",
        "--seed",
        "5",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const manifest: CurationManifest = CurationManifestSchema.parse(JSON.parse(readFileSync(out, "utf8")));
      expect(manifest).toMatchObject({ env: "frozenlake", policy: "random", episodes: 3, seed: "5" });
      expect(manifest.kept.map((k) => k.taskId)).toEqual(["4x4", "8x8"]);
      expect(manifest.sample.tasks).toHaveLength(1);
      const rolled = await runMain([
        "--json",
        "rl",
        "rollouts",
        "--config",
        still,
        "--curation",
        out,
        "--policy",
        "random",
        "--group",
        "2",
        "--store",
        store,
      ]);
      expect(rolled.code, rolled.stderr).toBe(0);
      const summary = json<{
        summary: {
          rl: RolloutGroupsReport;
          curation: CurationManifest & { path: string };
          oracleSteps: Record<string, number | null>;
          metrics: ReturnType<typeof rolloutMetrics>;
        };
      }>(rolled).summary;
      expect(summary.rl.groups.map((g) => g.taskId)).toEqual(manifest.sample.tasks);
      expect(summary.curation).toMatchObject({ path: out, sample: manifest.sample, run: manifest.run });
      // Still ice: the oracle solves 4x4 in 6 moves and 8x8 in 14, both in the hard subset (≥ 5).
      const [task] = manifest.sample.tasks;
      expect(summary.oracleSteps[task ?? ""]).toBe(task === "4x4" ? 6 : 14);
      expect(summary.metrics.subsets.hard).toMatchObject({ tasks: [task], trajectories: 2 });
    });

    it("an oracle that always succeeds is above max: nothing kept, and rollouts on that manifest are refused", async () => {
      const out = join(dir, "solved.json");
      const r = await curate(out, ["--policy", "oracle"]);
      expect(r.code, r.stderr).toBe(0);
      const manifest = json<CurationManifest>(r);
      expect(manifest.dropped.map((d) => [d.taskId, d.rate, d.reason])).toEqual([
        ["4x4", 1, "above_max"],
        ["8x8", 1, "above_max"],
      ]);
      const empty = await lakeRollouts("--curation", out);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(/rl\.curation_empty/);
    });

    it("refuses bad thresholds, --tasks beside --curation, a manifest task not in the suite, and another env", async () => {
      const bad = await curate(join(dir, "bad.json"), ["--min", "0.9", "--max", "0.5"]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toMatch(/rl\.curation_options[\s\S]*curation\.min: min must be ≤ max/); // --json: the error is the result
      const good = join(dir, "curation.json");
      const both = await lakeRollouts("--tasks", "4x4", "--curation", good);
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(/leave out --tasks/);
      const manifest = CurationManifestSchema.parse(JSON.parse(readFileSync(good, "utf8")));
      const unknown = join(dir, "unknown.json");
      writeFileSync(unknown, JSON.stringify({ ...manifest, sample: { size: 1, tasks: ["no-such-map"] } }));
      const missing = await lakeRollouts("--curation", unknown);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/rl\.curation_unknown_tasks.*unknown\.json.*no-such-map/);
      const web = await runMain(["rl", "rollouts", "--env", "web", "--curation", good, "--store", store]);
      expect(web.code).toBe(2);
      expect(web.stderr).toMatch(/rl\.curation_env/);
      const invalid = join(dir, "invalid.json");
      writeFileSync(invalid, JSON.stringify({ kind: "something else" }));
      const notManifest = await lakeRollouts("--curation", invalid);
      expect(notManifest.code).toBe(2);
      expect(notManifest.stderr).toMatch(/rl\.curation_invalid/);
    });

    it("--noise parses as eval's does: train only on rl rollouts, and only where the environment can be perturbed", async () => {
      const heldout = await lakeRollouts("--noise", "heldout");
      expect(heldout.code).toBe(2);
      expect(heldout.stderr).toMatch(/held-out generators are for evaluation only/);
      const other = await lakeRollouts("--noise", "loud");
      expect(other.stderr).toMatch(/--noise takes "train", got "loud"/);
      const rate = await lakeRollouts("--noise-rate", "0.5");
      expect(rate.stderr).toMatch(/--noise-rate needs --noise train/);
      const lake = await lakeRollouts("--tasks", "4x4", "--noise", "train");
      expect(lake.code).toBe(2);
      expect(lake.stderr).toMatch(/noise\.env_not_perturbable/);
      // eval keeps its messages (the same parser).
      const evalNoise = await runMain(["eval", "--env", "frozenlake", "--noise", "train", "--store", store]);
      expect(evalNoise.code).toBe(2);
      expect(evalNoise.stderr).toMatch(/--noise takes "heldout", got "train"/);
      const evalSchedule = await runMain([
        "eval",
        "--env",
        "frozenlake",
        "--schedule",
        "x.json",
        "--store",
        store,
      ]);
      expect(evalSchedule.stderr).toMatch(/--schedule and --policies need --noise heldout/);
    });
  });
});
