import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import { openSqliteStore, type SqliteRunStore } from "../../src/store/index.ts";
import {
  importTraces,
  readTraceFile,
  type TraceStep,
  TraceStepSchema,
  writeTraceFile,
} from "../../src/worldmodel/index.ts";
import { flakyPolicy } from "../fixtures/flaky-policy.ts";
import { recordFrozenLakeRun } from "./traces-helpers.ts";

let dir: string;
let store: SqliteRunStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-traces-"));
  store = openSqliteStore({ dir: join(dir, "store") });
  await recordFrozenLakeRun(store, { runId: "run_a", taskIds: ["4x4", "random-5-0"], episodes: 3 });
  await recordFrozenLakeRun(store, {
    runId: "run_flaky",
    taskIds: ["4x4"],
    episodes: 1,
    policy: flakyPolicy,
    slippery: false,
  });
  // An episode whose environment failed, and one still running: neither is a trace episode.
  store.startTrajectory({
    id: "traj_infra",
    runId: "run_a",
    taskId: "4x4",
    episodeIndex: 9,
    seed: 5,
    policy: "random",
    startedAtMs: 0,
  });
  store.finishTrajectory("traj_infra", {
    status: "infra_failed",
    endedAtMs: 1,
    error: { code: "env.crash", category: "environment", message: "engine died" },
  });
  store.startTrajectory({
    id: "traj_running",
    runId: "run_a",
    taskId: "4x4",
    episodeIndex: 10,
    seed: 6,
    policy: "random",
    startedAtMs: 0,
  });
}, 120_000);

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function byEpisode(steps: ReadonlyArray<TraceStep>): Map<string, TraceStep[]> {
  const out = new Map<string, TraceStep[]>();
  for (const s of steps) out.set(s.episodeId, [...(out.get(s.episodeId) ?? []), s]);
  return out;
}

describe("importTraces", () => {
  it("turns every complete trajectory into contiguous steps linked observation to observation", () => {
    const { steps, runs } = importTraces(store, ["run_a"]);
    expect(runs).toEqual([
      {
        runId: "run_a",
        episodes: 6,
        steps: steps.length,
        skippedInfraFailed: 1,
        skippedUnfinished: 1,
        skippedUnparsedSteps: 0,
      },
    ]);
    const episodes = byEpisode(steps);
    expect(episodes.size).toBe(6);
    for (const [id, episode] of episodes) {
      const t = store.getTrajectory(id);
      expect(t?.status).toBe("complete");
      expect(episode.map((s) => s.step)).toEqual(episode.map((_, i) => i));
      expect(episode).toHaveLength(t?.steps.length ?? -1);
      episode.forEach((s, i) => {
        expect(TraceStepSchema.parse(s)).toEqual(s);
        expect(s.source).toBe("run:run_a");
        expect(s.seed).toBe(t?.seed);
        expect(s.family).toBe("frozenlake");
        expect(s.taskId).toBe(t?.taskId);
        expect(s.action).toEqual(t?.steps[i]?.action);
        expect(s.observation).toEqual(t?.steps[i]?.observation);
        expect(s.reward).toBe(t?.steps[i]?.reward);
        expect(s.terminated).toBe(t?.steps[i]?.terminated);
        expect(s.truncated).toBe(t?.steps[i]?.truncated);
        if (i > 0) expect(s.observation).toEqual(episode[i - 1]?.nextObservation);
        expect(s.state).toBeUndefined();
      });
      expect(episode.at(-1)?.nextObservation).toEqual(t?.finalObservation);
      expect(episode.at(-1)?.terminated || episode.at(-1)?.truncated).toBe(true);
    }
    // Deterministic: the same store gives the same steps.
    expect(importTraces(store, ["run_a"]).steps).toEqual(steps);
  });

  it("skips the steps whose output did not parse and numbers the rest 0..n-1", () => {
    const { steps, runs } = importTraces(store, ["run_flaky"]);
    const t = store.listTrajectories("run_flaky")[0];
    const unparsed = runs[0]?.skippedUnparsedSteps ?? 0;
    expect(unparsed).toBeGreaterThan(0);
    expect(steps.length + unparsed).toBe(t?.stepCount);
    expect(steps.map((s) => s.step)).toEqual(steps.map((_, i) => i));
    for (const s of steps) expect(s.action).toEqual({ type: "move", direction: "down" });
  });

  it("fills state and nextState with the viewer's view, and the trace survives a file round trip", () => {
    const { steps } = importTraces(store, ["run_a", "run_flaky"], { viewer: frozenLakeStateViewer });
    const tasks = new Map(store.listTasks("run_a").map((t) => [t.id, t]));
    for (const s of steps) {
      const task = tasks.get(s.taskId);
      expect(s.state).toEqual(frozenLakeStateViewer.view(s.observation, task));
      expect(s.nextState).toEqual(frozenLakeStateViewer.view(s.nextObservation, task));
      expect(typeof s.state?.["agent.row"]).toBe("number");
    }
    const file = join(dir, "traces.jsonl");
    writeTraceFile(file, steps);
    expect(readTraceFile(file)).toEqual(steps);
  });

  it("an unknown or repeated run, a task not recorded, or a viewer of another family is a user error", () => {
    const fails = (run: () => unknown, code: string, text: string) => {
      try {
        run();
        expect.unreachable("should have thrown");
      } catch (error) {
        expect(error).toBeInstanceOf(UserError);
        expect((error as UserError).code).toBe(code);
        expect((error as UserError).message).toContain(text);
      }
    };
    fails(() => importTraces(store, ["run_a", "run_nope"]), "trace.unknown_run", "run_nope");
    fails(() => importTraces(store, ["run_a", "run_a"]), "trace.duplicate_run", "run_a");
    fails(
      () => importTraces(store, ["run_a"], { viewer: { ...frozenLakeStateViewer, family: "chess" } }),
      "trace.viewer_family",
      "chess",
    );
    store.createRun({ id: "run_bare", kind: "run", seed: "s", config: {}, codeVersion: "t", createdAtMs: 0 });
    store.startTrajectory({
      id: "traj_bare",
      runId: "run_bare",
      taskId: "4x4",
      episodeIndex: 0,
      seed: 1,
      policy: "p",
      startedAtMs: 0,
    });
    store.finishTrajectory("traj_bare", { status: "complete", endedAtMs: 1 });
    fails(() => importTraces(store, ["run_bare"]), "trace.unknown_task", "4x4");
    // With the task given, the (empty) trajectory imports as no steps.
    const task = store.listTasks("run_a").find((t) => t.id === "4x4");
    expect(importTraces(store, ["run_bare"], { tasks: task ? [task] : [] }).runs[0]).toMatchObject({
      episodes: 0,
      steps: 0,
    });
  });
});
