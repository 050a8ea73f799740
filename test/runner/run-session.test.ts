import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime, type Policy, UserError } from "../../src/core/index.ts";
import {
  createSignalController,
  executeRun,
  RunConfigSchema,
  withRunSession,
} from "../../src/runner/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-runner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (over: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({ env: "frozenlake", tasks: ["4x4", "8x8"], episodes: 4, seed: "7", ...over });

describe("withRunSession: the run lifecycle", () => {
  it("writes the tasks once at creation, marks a run failed when the body throws, and closes the policy", async () => {
    const store = createMemoryStore();
    const runtime = createRuntime({ seed: "7" });
    let closed = 0;
    let runId = "";
    await expect(
      withRunSession({ runtime, store }, { config: config() }, async (s) => {
        const policy = (await s.policy()) as Policy & { close?: () => Promise<void> };
        const inner = policy.close?.bind(policy);
        (policy as { close: () => Promise<void> }).close = async () => {
          closed += 1;
          await inner?.();
        };
        runId = s.createRun("run");
        throw new UserError("test.boom", "boom");
      }),
    ).rejects.toThrow("boom");
    expect(store.listTasks(runId).map((t) => t.id)).toEqual(["4x4", "8x8"]);
    const run = store.getRun(runId);
    expect(run?.status).toBe("failed");
    expect(run?.summary.error).toMatchObject({ code: "test.boom", category: "user" });
    expect(closed).toBe(1);
  });

  it("a run the body leaves unfinished is marked interrupted; a finished one keeps its status", async () => {
    const store = createMemoryStore();
    const runtime = createRuntime({ seed: "7" });
    const ids = await withRunSession({ runtime, store }, { config: config() }, async (s) => {
      const a = s.createRun("eval");
      const b = s.createRun("eval");
      expect(s.finishRun(a, { ok: true })).toBe("complete");
      return [a, b];
    });
    expect(ids.map((id) => store.getRun(id)?.status)).toEqual(["complete", "interrupted"]);
  });

  it("--tasks-dir outside the web environment and an empty task directory are user errors", async () => {
    const deps = { runtime: createRuntime(), store: createMemoryStore() };
    const body = async () => "ran";
    await expect(withRunSession(deps, { config: config({ tasksDir: dir }) }, body)).rejects.toMatchObject({
      code: "env.tasks_dir_unsupported",
      category: "user",
    });
    const empty = mkdtempSync(join(dir, "empty-"));
    await expect(
      withRunSession(deps, { config: config({ env: "web", tasks: "all", tasksDir: empty }) }, body),
    ).rejects.toMatchObject({ code: "tasks.none", category: "user" });
    expect(deps.store.listRuns()).toEqual([]);
  });
});

describe("executeRun: interrupt, abort in flight, resume", () => {
  it("a signal mid-episode records that episode aborted; --resume plays the rest to the uninterrupted summary", async () => {
    const reference = await executeRun(
      { runtime: createRuntime({ seed: "7" }), store: createMemoryStore() },
      { config: config(), storeDir: "mem" },
    );
    expect(reference.status).toBe("complete");

    const store = createMemoryStore();
    const runtime = createRuntime({ seed: "7" }); // one id sequence for both attempts
    const source = new EventEmitter();
    const signals = createSignalController({ source, exit: () => {} });
    // The signal lands in the middle of the third episode (after two recorded steps of it).
    let steps = 0;
    const first = await executeRun(
      { runtime, store, signals },
      {
        config: config(),
        storeDir: "mem",
        onEpisode: (_r, done) => {
          if (done === 2) {
            const original = store.appendStep.bind(store);
            store.appendStep = (id, step) => {
              original(id, step);
              if (++steps === 2) source.emit("SIGTERM");
            };
          }
        },
      },
    );
    signals.dispose();
    expect(first.status).toBe("interrupted");
    expect(store.getRun(first.runId)?.status).toBe("interrupted");
    const statuses = store.listTrajectories(first.runId).map((t) => t.status);
    expect(statuses).toEqual(["complete", "complete", "aborted"]);
    expect(first.summary.episodes).toBe(2);

    const resumed = await executeRun({ runtime, store }, { resume: first.runId, storeDir: "mem" });
    expect(resumed.status).toBe("complete");
    expect(resumed.runId).toBe(first.runId);
    expect(resumed.summary).toEqual(reference.summary);
    await expect(
      executeRun({ runtime, store }, { resume: first.runId, storeDir: "mem" }),
    ).rejects.toMatchObject({ code: "run.already_complete" });
  });
});
