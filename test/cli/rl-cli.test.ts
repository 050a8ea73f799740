import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import { type RolloutGroupsReport, TrlRlRecordSchema } from "../../src/rl/index.ts";
import { worldbookDefaultsFor } from "../../src/worldmodel/index.ts";
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
  runMain([
    "--json",
    "rl",
    "rollouts",
    "--env",
    "frozenlake",
    "--tasks",
    tasks,
    "--policy",
    "random",
    "--group",
    String(group),
    ...extra,
    "--store",
    store,
  ]);
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
    const r = await runMain([
      "rl",
      "rollouts",
      "--env",
      "frozenlake",
      "--tasks",
      "4x4",
      "--group",
      "2",
      "--store",
      store,
    ]);
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
    const bad = await runMain(["rl", "rollouts", "--env", "frozenlake", "--wm", "oracle", "--store", store]);
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
    const bad = await runMain(["rl", "rollouts", "--env", "frozenlake", "--gamma", "-1", "--store", store]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--gamma/);
    const run = json<{ runId: string }>(
      await runMain([
        "--json",
        "run",
        "--env",
        "frozenlake",
        "--tasks",
        "4x4",
        "--episodes",
        "1",
        "--store",
        store,
      ]),
    );
    const notRl = await runMain([
      "rl",
      "export",
      "--run",
      run.runId,
      "--out",
      join(dir, "x.jsonl"),
      "--store",
      store,
    ]);
    expect(notRl.code).toBe(2);
    expect(notRl.stderr).toMatch(/is a run run/);
  });
});
