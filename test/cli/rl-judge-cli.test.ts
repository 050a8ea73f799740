import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../src/core/index.ts";
import { startReplayServer } from "../../src/llm/index.ts";
import { JudgeOptionsSchema, judgeUserMessage, readJudgment } from "../../src/rl/index.ts";
import { JUDGE_MODEL, judgeFixtures, verdict } from "../rl/judge-fixtures.ts";
import { runMain, withStore } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-judgecli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const still = join(dir, "still.yaml");
writeFileSync(still, "env: frozenlake\nenvOptions: {slippery: false}\n");

/** The CLI with the judge endpoint in its environment (no retries: a failure is final at once). */
const cli = (args: string[], baseUrl: string) =>
  runMain(args, { env: { REHEARSAL_LLM_BASE_URL: baseUrl, REHEARSAL_LLM_MAX_RETRIES: "0" } });

/** A stored run's full trajectories and tasks. */
const storedRun = (store: string, runId: string) =>
  withStore(store, (s) => ({
    trajectories: [...s.iterateTrajectories(runId)],
    tasks: new Map(s.listTasks(runId).map((t) => [t.id, t])),
  }));

describe("rehearsal rl calibrate-judge (real FrozenLake episodes, recorded judge replies)", () => {
  it("reports accuracy, Cohen's κ, the confusion matrix, tiebreaks and judge failures, and stores them", async () => {
    const store = join(dir, "calibrate");
    // The oracle within 6 steps: 4x4 is solved, 8x8 and the 5x5 maps are not (verifier true / false).
    const played = await runMain([
      "--json",
      "run",
      "--config",
      still,
      "--tasks",
      "4x4,8x8,random-5-0,random-5-1",
      "--policy",
      "oracle",
      "--episodes",
      "2",
      "--max-steps",
      "6",
      "--seed",
      "1",
      "--store",
      store,
    ]);
    expect(played.code, played.stderr).toBe(0);
    const runId = (JSON.parse(played.stdout) as { runId: string }).runId;
    const { trajectories, tasks } = storedRun(store, runId);
    const replies: Record<string, Record<number, string>> = {
      "4x4": { 0: verdict(true), 2: verdict(false), 4: verdict(true) }, // disagreement, third call: true
      "8x8": { 0: verdict(false), 2: verdict(false) },
      "random-5-0": { 0: "It looks fine.", 1: "Probably a success.", 2: verdict(false) }, // unparsable twice: failure
      "random-5-1": { 0: verdict(true, "near G"), 2: verdict(true, "near G") }, // wrong: the verifier says false
    };
    const server = await startReplayServer({
      fixtures: judgeFixtures(
        trajectories.map((t) => ({ task: tasks.get(t.taskId)!, trajectory: t, replies: replies[t.taskId]! })),
      ),
    });
    const args = ["rl", "calibrate-judge", "--run", runId, "--store", store, "--judge-model", JUDGE_MODEL];
    const r = await cli(["--json", ...args], server.baseUrl);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      considered: 8,
      skipped: 0,
      judged: 6,
      failed: 2,
      tiebreaks: 2,
      tiebreaksAgreeing: 2,
      agreement: { n: 6, confusion: { tp: 2, fn: 0, fp: 2, tn: 2 } },
    });
    // p_o = 4/6, p_e = (2·4 + 4·2)/36 = 16/36 → κ = (24 − 16)/(36 − 16) = 0.4.
    expect(report.agreement.accuracy).toBeCloseTo(4 / 6, 12);
    expect(report.agreement.kappa).toBeCloseTo(0.4, 12);
    expect(report.disagreements.map((d: { taskId: string }) => d.taskId)).toEqual([
      "random-5-1",
      "random-5-1",
    ]);
    expect(report.failures.map((f: { code: string }) => f.code)).toEqual([
      "judge.unparsable",
      "judge.unparsable",
    ]);
    // Stored with the run: the report in its summary, each judgment (raw replies included) as an artefact.
    withStore(store, (s) => {
      const stored = s.getRun(runId)?.summary.judgeCalibration as typeof report;
      expect(stored.agreement.kappa).toBeCloseTo(0.4, 12);
      const failedRef = stored.judgments.find((j: { method: string }) => j.method === "failed");
      expect(readJudgment(s, failedRef)?.calls.map((c) => c.raw)).toEqual([
        "It looks fine.",
        "Probably a success.",
        verdict(false),
      ]);
    });
    const table = await cli(args, server.baseUrl);
    await server.close();
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("Cohen's κ 0.400");
    expect(table.stdout).toMatch(/2 disagreements between the two calls resolved by a third/);

    const unknown = await cli([...args.slice(0, 3), "nope", ...args.slice(4)], server.baseUrl);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no run nope/);
    const noModel = await cli(["rl", "calibrate-judge", "--run", runId, "--store", store], server.baseUrl);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toMatch(/REHEARSAL_LLM_MODEL.*--judge-model/);
  });
});

describe("rehearsal rl rollouts --success judge", () => {
  const rollouts = (store: string, extra: string[]) => [
    "--json",
    "rl",
    "rollouts",
    "--config",
    still,
    "--tasks",
    "4x4",
    "--policy",
    "random",
    "--group",
    "6",
    "--t-max",
    "8",
    "--seed",
    "2",
    "--store",
    store,
    ...extra,
  ];

  it("scores the judge's verdict as R_success, keeps the verifier's, and excludes a member the judge failed on", async () => {
    const store = join(dir, "rollouts");
    // The same seed plays the same members: the first run shows what the judge will be asked.
    const first = await runMain(rollouts(store, []));
    expect(first.code, first.stderr).toBe(0);
    const { trajectories, tasks } = storedRun(store, JSON.parse(first.stdout).runId);
    const options = JudgeOptionsSchema.parse({});
    const task = tasks.get("4x4")!;
    const requestOf = (t: Trajectory) => judgeUserMessage(task, t, options);
    const distinct = [...new Set(trajectories.map(requestOf))];
    expect(distinct.length).toBeGreaterThanOrEqual(2);
    const behaviour = (t: Trajectory) => (distinct.indexOf(requestOf(t)) === 1 ? "fail" : "invert");
    const server = await startReplayServer({
      fixtures: judgeFixtures(
        trajectories.map((t) => {
          const judged = t.outcome?.success !== true;
          return {
            task,
            trajectory: t,
            replies:
              behaviour(t) === "fail"
                ? { 0: [{ status: 500, error: "judge down" }], 2: [{ status: 500, error: "judge down" }] }
                : { 0: verdict(judged), 2: verdict(judged) },
          };
        }),
      ),
    });
    const r = await cli(
      rollouts(store, ["--success", "judge", "--judge-model", JUDGE_MODEL]),
      server.baseUrl,
    );
    await server.close();
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout).summary;
    const failing = trajectories.filter((t) => behaviour(t) === "fail").length;
    expect(summary.judge).toMatchObject({ model: JUDGE_MODEL, failed: failing, judged: 6 - failing });
    const group = summary.rl.groups[0];
    expect(group.infraFailed).toHaveLength(failing);
    expect(group.members).toHaveLength(6 - failing);
    for (const m of group.members as Array<{ success: boolean; verifierSuccess: boolean; member: number }>) {
      expect(m.success).toBe(!m.verifierSuccess);
      const played = trajectories.find((t) => (t.meta.rl as { member: number }).member === m.member)!;
      expect(m.verifierSuccess).toBe(played.outcome?.success === true);
    }
    expect(JSON.parse(r.stdout).summary.judge.agreement.accuracy).toBe(0);
  });

  it("a judge that fails on every member fails the run with the provider's exit code; judge flags need --success judge", async () => {
    const store = join(dir, "rollouts-down");
    const server = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    const r = await cli(
      rollouts(store, ["--success", "judge", "--judge-model", JUDGE_MODEL]),
      server.baseUrl,
    );
    const bare = await cli(rollouts(store, ["--judge-model", JUDGE_MODEL]), server.baseUrl);
    const bad = await cli(rollouts(store, ["--success", "vibes"]), server.baseUrl);
    await server.close();
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stdout).error.category).toBe("provider");
    withStore(store, (s) => expect(s.listRuns({ kind: "rl" })[0]?.status).toBe("failed"));
    expect(bare.code).toBe(2);
    expect(bare.stdout).toMatch(/add --success judge/);
    expect(bad.code).toBe(2);
  });
});
