import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type Observation, type StepRecord, StepRecordSchema } from "../../src/core/index.ts";
import { DATABASE_FILE, openSqliteStore } from "../../src/store/index.ts";
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate } from "../../src/store/migrations.ts";
import { fastStepPieces, stepTail } from "../../src/store/step-text.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Schema 4 keeps steps in a `WITHOUT ROWID` table without per-row foreign keys (a trigger deletes the
 * steps of a deleted trajectory) and each recurring step middle once (`step_middles`). A schema-3 store,
 * written here with the v1–v3 migrations and rows as the schema-3 store wrote them (fast-path steps as
 * an observation reference and the tail, schema-path steps as their whole text), must migrate on open
 * with every row copied unchanged and every step read back as it was.
 */

const temp = createTempDirs("steps-migration");
afterAll(() => temp.cleanup());

const RUN = "run_v3";
const COLUMNS = "trajectory_id, idx, action_type, reward, terminated, truncated, data, observation_id";
/** Schema 3's step text (statements.ts before schema 4). */
const V3_TEXT = `CASE WHEN observation_id IS NULL THEN data ELSE '{"index":' || idx || ',"observation":' ||
  (SELECT text FROM observations o WHERE o.id = observation_id) || data END`;

function step(index: number, observation: Observation, overrides: Partial<StepRecord> = {}): StepRecord {
  return {
    index,
    observation,
    action: { type: "move", direction: index % 2 === 0 ? "left" : "up" },
    raw: `{"type":"move","direction":"${index % 2 === 0 ? "left" : "up"}"}`,
    reward: index === 2 ? 0.125 : 0,
    terminated: false,
    truncated: false,
    info: { cell: index % 3, note: 'é😀 "q"' },
    timeMs: 1_700_000_000_000 + index,
    ...overrides,
  };
}

/** Writes a schema-3 store in `dir` and returns its step rows and their texts as schema 3 reads them. */
function writeV3Store(dir: string) {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, DATABASE_FILE);
  const db = new Database(path);
  db.pragma("foreign_keys = ON");
  expect(migrate(db, path, MIGRATIONS.slice(0, 3))).toBe(3);
  db.prepare(`INSERT INTO runs VALUES (?, 'run', 'running', 's', '{}', 'v', 0, 0, '{}')`).run(RUN);
  const insertTrajectory = db.prepare(`INSERT INTO trajectories (id, run_id, task_id, episode_index, seed,
    policy, status, started_at_ms, meta, schema_version) VALUES (?, ?, 't', ?, 1, 'p', ?, 0, '{}', 1)`);
  const insertObservation = db.prepare("INSERT INTO observations (text) VALUES (?)");
  const insertStep = db.prepare(`INSERT INTO steps (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const observationIds = new Map<string, number>();
  /** A step as the schema-3 store wrote it: fast path when it can, else its whole schema text. */
  function append(trajectoryId: string, s: StepRecord): void {
    const pieces = fastStepPieces(s);
    const flags = [s.terminated ? 1 : 0, s.truncated ? 1 : 0];
    const columns = [trajectoryId, s.index, s.action?.type ?? null, s.reward, ...flags];
    if (pieces === undefined) {
      insertStep.run(...columns, JSON.stringify(StepRecordSchema.parse(s)), null);
      return;
    }
    let id = observationIds.get(pieces.observation);
    if (id === undefined) {
      id = Number(insertObservation.run(pieces.observation).lastInsertRowid);
      observationIds.set(pieces.observation, id);
    }
    insertStep.run(...columns, stepTail(pieces), id);
  }
  const grid: Observation = { text: 'grid é😀\n"P"', stateKey: "k:0", data: { row: 0 } };
  const other: Observation = { text: "another cell", legalActions: [{ type: "move", direction: "up" }] };
  insertTrajectory.run("traj_a", RUN, 0, "complete");
  for (let i = 0; i < 6; i++) append("traj_a", step(i, i % 2 === 0 ? grid : other));
  insertTrajectory.run("traj_b", RUN, 1, "running");
  append("traj_b", step(0, grid, { action: null, parseError: { code: "p", message: "no action" } }));
  append("traj_b", step(1, { text: "bad", extra: 1 } as Observation)); // not the fast path: whole text
  append("traj_b", step(2, grid, { terminated: true, truncated: true, reward: -1.5 }));
  const rows = db.prepare(`SELECT ${COLUMNS} FROM steps ORDER BY trajectory_id, idx`).all();
  const texts = db.prepare(`SELECT ${V3_TEXT} FROM steps ORDER BY trajectory_id, idx`).pluck().all();
  db.close();
  return { rows, texts: texts as string[] };
}

describe("steps without rowid, middles kept once (schema 4)", () => {
  it("migrates a schema-3 store, copying every step row unchanged and reading every step back", () => {
    const dir = temp.make();
    const before = writeV3Store(dir);
    expect(before.rows).toHaveLength(9);
    const store = openSqliteStore({ dir });
    expect(store.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(4);
    const read = ["traj_a", "traj_b"].flatMap((id) => store.getTrajectory(id)?.steps ?? []);
    expect(read.map((s) => JSON.stringify(s))).toEqual(before.texts);
    expect(store.listSteps("traj_a", { offset: 2, limit: 3 }).map((s) => JSON.stringify(s))).toEqual(
      before.texts.slice(2, 5),
    );
    expect(store.getTrajectoryHeader("traj_b")?.stepCount).toBe(3);
    // The running trajectory goes on from its last step.
    const next = step(3, { text: "after the migration" });
    store.appendStep("traj_b", next);
    expect(store.getTrajectory("traj_b")?.steps[3]).toEqual(StepRecordSchema.parse(next));
    store.close();

    const db = new Database(join(dir, DATABASE_FILE));
    const rows = db
      .prepare(`SELECT ${COLUMNS} FROM steps WHERE NOT (trajectory_id = 'traj_b' AND idx = 3)
        ORDER BY trajectory_id, idx`)
      .all();
    expect(rows).toEqual(before.rows);
    expect(
      db.prepare("SELECT COUNT(*) FROM steps WHERE idx < 3 AND middle_id IS NOT NULL").pluck().get(),
    ).toBe(0);
    const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'steps'").pluck().get() as string;
    expect(table).toMatch(/WITHOUT ROWID/);
    expect(table).not.toMatch(/REFERENCES/);
    // Deleting a trajectory, or the run that cascades to its trajectories, deletes its steps.
    db.pragma("foreign_keys = ON");
    db.prepare("DELETE FROM trajectories WHERE id = 'traj_a'").run();
    const count = db.prepare("SELECT COUNT(*) FROM steps WHERE trajectory_id = ?").pluck();
    expect([count.get("traj_a"), count.get("traj_b")]).toEqual([0, 4]);
    db.prepare("DELETE FROM runs WHERE id = ?").run(RUN);
    expect(db.prepare("SELECT COUNT(*) FROM steps").pluck().get()).toBe(0);
    db.close();
  });

  it("stores a middle once it recurs and reads every step back as the schema gives it", () => {
    const dir = temp.make();
    const store = openSqliteStore({ dir, batchSteps: 4, batchMs: 1e9 });
    store.createRun({ id: RUN, kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
    const trajectory = { runId: RUN, taskId: "t", episodeIndex: 0, seed: 1, policy: "p", startedAtMs: 0 };
    store.startTrajectory({ ...trajectory, id: "a" });
    const observation: Observation = Object.freeze({ text: "cell" });
    // Two middles in turn (the action alternates; the info is the same), each seen five times.
    const steps = Array.from({ length: 10 }, (_, i) => step(i, observation, { reward: 0, info: { k: 1 } }));
    for (const s of steps) store.appendStep("a", s);
    store.finishTrajectory("a", { status: "complete", endedAtMs: 1 });
    expect(store.getTrajectory("a")?.steps.map((s) => JSON.stringify(s))).toEqual(
      steps.map((s) => JSON.stringify(StepRecordSchema.parse(s))),
    );
    store.close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const ids = db.prepare("SELECT middle_id FROM steps ORDER BY idx").pluck().all();
    expect(ids.slice(0, 2)).toEqual([null, null]); // first sightings stay in their rows
    expect(new Set(ids.slice(2)).size).toBe(2);
    expect(db.prepare("SELECT COUNT(*) FROM step_middles").pluck().get()).toBe(2);
    db.close();
  });

  it("forgets the middles of a batch that did not commit, so later steps never reference them", () => {
    const dir = temp.make();
    const store = openSqliteStore({ dir, batchSteps: 100, batchMs: 1e9 });
    const other = openSqliteStore({ dir, batchMs: 0 });
    store.createRun({ id: RUN, kind: "run", seed: "s", config: {}, codeVersion: "v", createdAtMs: 0 });
    const trajectory = { runId: RUN, taskId: "t", episodeIndex: 0, seed: 1, policy: "p", startedAtMs: 0 };
    store.startTrajectory({ ...trajectory, id: "a" });
    store.startTrajectory({ ...trajectory, id: "b" });
    const observation: Observation = Object.freeze({ text: "cell" });
    const same = (index: number) => step(index, observation, { action: null, raw: "x", reward: 0, info: {} });
    store.appendStep("b", same(0));
    store.listTrajectories(RUN); // commits: the middle, seen once, stays in b's first row
    store.appendStep("b", same(1)); // the middle recurs: the next commit stores it first
    store.appendStep("a", same(0));
    other.finishTrajectory("a", { status: "aborted", endedAtMs: 1 });
    expect(() => store.getRun(RUN)).toThrow(/already finished/); // the commit rolls back
    // b's step commits now, its middle seen afresh (not a reference to the rolled-back row).
    store.finishTrajectory("b", { status: "complete", endedAtMs: 2 });
    expect(store.getTrajectory("b")?.steps.map((s) => JSON.stringify(s))).toEqual(
      [same(0), same(1)].map((s) => JSON.stringify(StepRecordSchema.parse(s))),
    );
    store.close();
    other.close();
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const dangling = db.prepare(`SELECT COUNT(*) FROM steps s WHERE
      (observation_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.id = s.observation_id))
      OR (middle_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM step_middles m WHERE m.id = s.middle_id))`);
    expect(dangling.pluck().get()).toBe(0);
    expect(db.prepare("SELECT COUNT(*) FROM steps WHERE middle_id IS NOT NULL").pluck().get()).toBe(0);
    db.close();
  });
});
