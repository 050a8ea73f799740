import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type Action, createRuntime, type Observation } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore, DATABASE_FILE, openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { LATEST_SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Schema 3 keeps each distinct observation of appended steps once (table `observations`) and rebuilds a
 * step's text on read. `fixtures/store-v2` was written by the schema-2 code (FrozenLake episodes, steps
 * with a screenshot, a parse error, unicode text, a running trajectory, a tree) with `expected.json`
 * holding what every read API returned then: the store must migrate on open and read back the very same
 * JSON, and go on recording.
 */

const FIXTURE = fileURLToPath(new URL("../fixtures/store-v2", import.meta.url));
const temp = createTempDirs("observations-migration");
afterAll(() => temp.cleanup());

function copyFixture(): string {
  const dir = temp.make();
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

/** Every read the fixture's expected.json holds, in the same shape. */
function readAll(store: RunStore) {
  const ids = store.listTrajectories("run_v2").map((h) => h.id);
  const shot = store.getTrajectory("traj_schema")?.steps[0]?.observation.screenshot?.sha256 ?? "";
  return {
    run: store.getRun("run_v2"),
    tasks: store.listTasks("run_v2"),
    headers: store.listTrajectories("run_v2"),
    trajectories: ids.map((id) => store.getTrajectory(id)),
    iterated: [...store.iterateTrajectories("run_v2")],
    pages: ids.map((id) => store.listSteps(id, { offset: 1, limit: 2 })),
    artefact: Array.from(store.getArtefact(shot) ?? []),
    trees: store.listTrees("run_v2"),
    nodes: store.listNodes("tree_v2"),
  };
}

describe("observations stored once (schema 3)", () => {
  it("migrates a schema-2 store on open and reads back byte-identical records", () => {
    const dir = copyFixture();
    const expected = readFileSync(join(FIXTURE, "expected.json"), "utf8");
    const before = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(before.prepare("SELECT MAX(version) FROM schema_version").pluck().get()).toBe(2);
    before.close();
    const store = openSqliteStore({ dir });
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(3);
    expect(`${JSON.stringify(readAll(store))}\n`).toBe(expected);
    // The running trajectory goes on after the migration: its new step references a stored observation.
    const observation: Observation = Object.freeze({ text: "after the migration" });
    const action: Action = Object.freeze({ type: "key", keys: "Tab" });
    const step = { observation, action, raw: "Tab", reward: 0, terminated: false, truncated: false };
    store.appendStep("traj_running", { ...step, index: 1, info: {}, timeMs: 30 });
    store.appendStep("traj_running", { ...step, index: 2, info: {}, timeMs: 31 });
    store.finishTrajectory("traj_running", { status: "complete", endedAtMs: 32 });
    const steps = store.getTrajectory("traj_running")?.steps ?? [];
    expect(steps.map((s) => s.observation.text)).toEqual([
      'page é😀 "q"',
      "after the migration",
      "after the migration",
    ]);
    store.close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const rows = db
      .prepare("SELECT observation_id FROM steps WHERE trajectory_id = 'traj_running' ORDER BY idx")
      .pluck()
      .all();
    expect(rows[0]).toBeNull(); // written at schema 2: whole text
    expect(rows[1]).not.toBeNull();
    expect(rows[2]).toBe(rows[1]); // the same observation, stored once
    db.close();
    // Read-only opening of the migrated store reads the same.
    const again = openSqliteStore({ dir, readOnly: true });
    expect(again.getTrajectory("traj_running")?.steps).toEqual(steps);
    again.close();
  });

  it("keeps FrozenLake's observations once and reads back what the memory store gives", async () => {
    async function record(store: RunStore) {
      const env = createFrozenLakeEnvironment({});
      store.createRun({ id: "r", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
      await runEpisodes(
        { env, policy: createRandomPolicy(), runtime: createRuntime({ seed: "s" }), store },
        { runId: "r", tasks: [env.suite.get("8x8")], episodes: 20, seed: "s", temperature: 1 },
      );
      await env.close();
      const ids = store.listTrajectories("r").map((h) => h.id);
      const texts = ids.map((id) =>
        JSON.stringify([store.getTrajectory(id), store.listSteps(id, { offset: 2, limit: 5 })]),
      );
      store.close();
      return texts;
    }
    const dir = temp.make();
    const sqlite = await record(openSqliteStore({ dir, batchSteps: 7, batchMs: 1e9 }));
    expect(sqlite).toEqual(await record(createMemoryStore()));
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const steps = db.prepare("SELECT COUNT(*) FROM steps").pluck().get() as number;
    const distinct = db.prepare("SELECT COUNT(DISTINCT text) FROM observations").pluck().get() as number;
    const stored = db.prepare("SELECT COUNT(*) FROM observations").pluck().get() as number;
    expect(db.prepare("SELECT COUNT(*) FROM steps WHERE observation_id IS NULL").pluck().get()).toBe(0);
    expect(stored).toBe(distinct); // one connection never stores a text twice
    expect(stored).toBeLessThanOrEqual(64); // 8x8: one observation per cell
    expect(steps).toBeGreaterThan(stored);
    db.close();
  });

  it("forgets the observations of a batch that did not commit, so later steps never reference them", () => {
    const dir = temp.make();
    const store = openSqliteStore({ dir, batchSteps: 100, batchMs: 1e9 });
    const other = openSqliteStore({ dir, batchMs: 0 }); // commits its end at once
    store.createRun({ id: "r", kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
    const observation: Observation = Object.freeze({ text: "shared" });
    const step = (index: number) => ({
      index,
      observation,
      action: null,
      raw: "x",
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
      timeMs: index,
    });
    const start = (id: string) =>
      store.startTrajectory({
        id,
        runId: "r",
        taskId: "t",
        episodeIndex: 0,
        seed: 1,
        policy: "p",
        startedAtMs: 0,
        meta: {},
      });
    start("a");
    start("b");
    store.listTrajectories("r"); // commits the starts (they wait in the batch), so that `other` sees a
    store.appendStep("b", step(0)); // waits in the batch; the commit inserts its observation first
    store.appendStep("a", step(0));
    other.finishTrajectory("a", { status: "aborted", endedAtMs: 1 }); // another connection finishes a
    // The commit stores b's step and its observation, then fails on a's: it all rolls back.
    expect(() => store.getRun("r")).toThrow(/already finished/);
    // b's step commits now, with its observation stored again (not a reference to the rolled-back row).
    store.finishTrajectory("b", { status: "complete", endedAtMs: 2 });
    expect(store.getTrajectory("b")?.steps[0]?.observation.text).toBe("shared");
    store.close();
    other.close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    expect(db.pragma("foreign_key_check")).toEqual([]);
    // Steps reference observations without a foreign key (schema 4): every reference finds its row.
    const dangling = db.prepare(`SELECT COUNT(*) FROM steps s WHERE observation_id IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.id = s.observation_id)`);
    expect(dangling.pluck().get()).toBe(0);
    db.close();
  });
});
