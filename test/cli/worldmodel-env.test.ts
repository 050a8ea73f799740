import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import { json, runMain, withStore } from "./run-cli.ts";
import { recordRunWorldbook, runOnWorldbook } from "./worldmodel-helpers.ts";

/**
 * `--env worldmodel:DIR` on a worldbook built from a real recorded FrozenLake run (slippery): run, search,
 * eval, rl rollouts and tasks list work on it unchanged, and the recorded steps carry `info.worldmodel`.
 */
const root = mkdtempSync(join(tmpdir(), "wm-cli-"));
const realStore = join(root, "real");
const store = join(root, "sim");
const book = join(root, "book");
/** The simulated runs: on the book, with the random policy, into their own store. */
const sim = { book, store, policy: "random" };
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  const config = join(root, "frozenlake.yaml");
  writeFileSync(config, "env: frozenlake\nenvOptions:\n  slippery: true\n");
  await recordRunWorldbook({
    runArgs: [
      "--config",
      config,
      "--tasks",
      "4x4,8x8",
      "--policy",
      "random",
      "-n",
      "30",
      "--max-steps",
      "30",
      "--seed",
      "1",
    ],
    store: realStore,
    book,
    viewer: frozenLakeStateViewer,
    options: { lookups: [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }] },
  });
}, 180_000);

describe("--env worldmodel:DIR", () => {
  it("run plays the world model and records which book and rules it used", async () => {
    const r = await runOnWorldbook(["run"], {
      ...sim,
      tasks: "4x4,8x8",
      extra: ["-n", "3", "--max-steps", "20"],
    });
    const out = json<{ runId: string; status: string; summary: { episodes: number } }>(r);
    expect(out.status).toBe("complete");
    expect(out.summary.episodes).toBe(6);
    withStore(store, (s) => {
      const run = s.getRun(out.runId);
      expect(run?.config).toMatchObject({
        env: "worldmodel",
        worldbook: { dir: book, family: "frozenlake", hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      });
      const [trajectory] = [...s.iterateTrajectories(out.runId, { status: "complete" })];
      const info = trajectory?.steps[0]?.info.worldmodel as { system: string; fired: string[] };
      expect(info.system).toBe("full");
      expect(info.fired.length).toBeGreaterThan(0);
    });
  }, 120_000);

  it("search runs unchanged on it", async () => {
    const r = await runOnWorldbook(["search"], { ...sim, tasks: "4x4" });
    expect(json<{ status: string }>(r).status).toBe("complete");
  }, 120_000);

  it("eval runs unchanged on it", async () => {
    const r = await runOnWorldbook(["eval"], {
      ...sim,
      tasks: "4x4",
      extra: ["--rollouts", "4", "--k", "1,2", "--max-steps", "20"],
    });
    const out = json<{ rollouts: number; perTask: Array<{ taskId: string; n: number }> }>(r);
    expect(out.rollouts).toBe(4);
    expect(out.perTask).toEqual([expect.objectContaining({ taskId: "4x4", n: 4 })]);
  }, 120_000);

  it("rl rollouts groups run unchanged on it", async () => {
    const r = await runOnWorldbook(["rl", "rollouts"], { ...sim, tasks: "4x4", extra: ["--group", "4"] });
    expect(json<{ status: string; env: string }>(r)).toMatchObject({ status: "complete", env: "worldmodel" });
  }, 120_000);

  it("tasks list shows the worldbook's tasks", async () => {
    const r = await runMain(["--json", "tasks", "list", "--env", `worldmodel:${book}`]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{ family: string; tasks: Array<{ id: string; tags: string[] }> }>(r);
    expect(out.family).toBe("frozenlake");
    expect(out.tasks.map((t) => t.id)).toEqual(["4x4", "8x8"]);
    expect(out.tasks[0]?.tags).toContain("worldmodel");
  });

  it("a missing worldbook directory is worldbook.invalid, exit code 2", async () => {
    const r = await runMain(["run", "--env", `worldmodel:${join(root, "nope")}`, "--store", store]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("worldbook.invalid");
    const empty = await runMain(["run", "--env", "worldmodel:", "--store", store]);
    expect(empty.code).toBe(2);
  });
});
