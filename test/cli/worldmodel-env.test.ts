import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import { buildWorldbook, importTraces, writeWorldbook } from "../../src/worldmodel/index.ts";
import { json, runMain, withStore } from "./run-cli.ts";

/**
 * `--env worldmodel:DIR` on a worldbook built from a real recorded FrozenLake run (slippery): run, search,
 * eval, rl rollouts and tasks list work on it unchanged, and the recorded steps carry `info.worldmodel`.
 */
const root = mkdtempSync(join(tmpdir(), "wm-cli-"));
const realStore = join(root, "real");
const store = join(root, "sim");
const book = join(root, "book");
afterAll(() => rmSync(root, { recursive: true, force: true }));

beforeAll(async () => {
  const config = join(root, "frozenlake.yaml");
  writeFileSync(config, "env: frozenlake\nenvOptions:\n  slippery: true\n");
  const r = await runMain([
    "--json",
    "run",
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
    "--store",
    realStore,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const runId = json<{ runId: string }>(r).runId;
  withStore(realStore, (s) => {
    const { steps } = importTraces(s, [runId], { viewer: frozenLakeStateViewer });
    const lookups = [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }];
    writeWorldbook(book, buildWorldbook(steps, { lookups }, { tasks: s.listTasks(runId) }));
  });
}, 180_000);

describe("--env worldmodel:DIR", () => {
  it("run plays the world model and records which book and rules it used", async () => {
    const r = await runMain([
      "--json",
      "run",
      "--env",
      `worldmodel:${book}`,
      "--tasks",
      "4x4,8x8",
      "--policy",
      "random",
      "-n",
      "3",
      "--max-steps",
      "20",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
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
    const r = await runMain([
      "--json",
      "search",
      "--env",
      `worldmodel:${book}`,
      "--tasks",
      "4x4",
      "--policy",
      "random",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ status: string }>(r).status).toBe("complete");
  }, 120_000);

  it("eval runs unchanged on it", async () => {
    const r = await runMain([
      "--json",
      "eval",
      "--env",
      `worldmodel:${book}`,
      "--tasks",
      "4x4",
      "--policy",
      "random",
      "--rollouts",
      "4",
      "--k",
      "1,2",
      "--max-steps",
      "20",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<{ rollouts: number; perTask: Array<{ taskId: string; n: number }> }>(r);
    expect(out.rollouts).toBe(4);
    expect(out.perTask).toEqual([expect.objectContaining({ taskId: "4x4", n: 4 })]);
  }, 120_000);

  it("rl rollouts groups run unchanged on it", async () => {
    const r = await runMain([
      "--json",
      "rl",
      "rollouts",
      "--env",
      `worldmodel:${book}`,
      "--tasks",
      "4x4",
      "--policy",
      "random",
      "--group",
      "4",
      "--store",
      store,
    ]);
    expect(r.code, r.stderr).toBe(0);
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
