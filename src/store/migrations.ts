import type Database from "better-sqlite3";
import { InternalError, UserError } from "../core/index.ts";
import { STORE_ERROR_CODES } from "./contract.ts";
import { classifyFailure, storeError } from "./store-errors.ts";

/** One schema step. Versions start at 1 and increase by one; a released migration never changes. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const INITIAL = `
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  seed TEXT NOT NULL,
  config TEXT NOT NULL,
  code_version TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  summary TEXT NOT NULL
);
CREATE INDEX runs_by_created ON runs (created_at_ms DESC, id DESC);
CREATE INDEX runs_by_kind ON runs (kind, created_at_ms DESC, id DESC);

CREATE TABLE tasks (
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  task_id TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, task_id)
);

CREATE TABLE trajectories (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  task_id TEXT NOT NULL,
  episode_index INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  policy TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER,
  outcome TEXT,
  error TEXT,
  final_observation TEXT,
  meta TEXT NOT NULL,
  schema_version INTEGER NOT NULL
);
CREATE INDEX trajectories_by_run ON trajectories (run_id, episode_index, id);
CREATE INDEX trajectories_by_task ON trajectories (run_id, task_id, episode_index, id);
CREATE INDEX trajectories_by_status ON trajectories (run_id, status, episode_index, id);

CREATE TABLE steps (
  trajectory_id TEXT NOT NULL REFERENCES trajectories (id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  action_type TEXT,
  reward REAL NOT NULL,
  terminated INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (trajectory_id, idx)
);

CREATE TABLE artefacts (
  sha256 TEXT PRIMARY KEY,
  mime TEXT NOT NULL,
  size INTEGER NOT NULL
);

CREATE TABLE trees (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  task_id TEXT NOT NULL,
  seed INTEGER NOT NULL,
  status TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX trees_by_run ON trees (run_id);

CREATE TABLE tree_nodes (
  tree_id TEXT NOT NULL REFERENCES trees (id) ON DELETE CASCADE,
  id TEXT NOT NULL,
  parent_id TEXT,
  depth INTEGER NOT NULL,
  status TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (tree_id, id)
);
CREATE INDEX tree_nodes_by_depth ON tree_nodes (tree_id, depth);
CREATE INDEX tree_nodes_by_parent ON tree_nodes (tree_id, parent_id);
CREATE INDEX tree_nodes_by_status ON tree_nodes (tree_id, status);
`;

/** Knowledge tables (SKL) kept in the store's database: every version of every key, by table name. */
const KNOWLEDGE_ENTRIES = `
CREATE TABLE knowledge_entries (
  table_name TEXT NOT NULL,
  key TEXT NOT NULL,
  version INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (table_name, key, version)
);
`;

/**
 * Each distinct observation of appended steps stored once (environments repeat observations: a grid
 * world has a few dozen, web pages recur). A step with `observation_id` keeps in `data` only its text
 * after the observation; its text is rebuilt on read (`STEP_TEXT` in statements.ts). Rows written
 * before this migration have no `observation_id` and keep their whole text, so they read as before.
 */
const STEP_OBSERVATIONS = `
CREATE TABLE observations (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);
ALTER TABLE steps ADD COLUMN observation_id INTEGER REFERENCES observations (id);
`;

/**
 * Steps as a `WITHOUT ROWID` table keyed by (trajectory_id, idx): one b-tree per step insert instead of
 * the table and its primary-key index, and no foreign keys checked per row. The store checks what those
 * checked before it writes (a start's run, the committed state of a trajectory whose waiting steps
 * begin a batch, see `store/batch-commit.ts`), and a text id it references is one it stored itself
 * (nothing deletes observations or middles). Deleting a trajectory (itself, or by the cascade from its
 * run) still deletes its steps: a trigger does what `ON DELETE CASCADE` did. Every row is copied as it
 * was.
 *
 * And each recurring step middle (the text between the observation and the time: action, raw text,
 * reward, flags, info; see `stepMiddle`) stored once in `step_middles`: a step with `middle_id` keeps in
 * `data` only its text after the middle. Rows without `middle_id` (all rows written before, and steps
 * whose middle was new) read as before. A FrozenLake step's row went from ~370 bytes to ~60, and SQLite's
 * cost per row (binding, b-tree, WAL, checkpoint) follows the bytes.
 */
const STEPS_WITHOUT_ROWID = `
CREATE TABLE step_middles (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);
CREATE TABLE steps_v4 (
  trajectory_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  action_type TEXT,
  reward REAL NOT NULL,
  terminated INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  data TEXT NOT NULL,
  observation_id INTEGER,
  middle_id INTEGER,
  PRIMARY KEY (trajectory_id, idx)
) WITHOUT ROWID;
INSERT INTO steps_v4 (trajectory_id, idx, action_type, reward, terminated, truncated, data, observation_id)
  SELECT trajectory_id, idx, action_type, reward, terminated, truncated, data, observation_id FROM steps;
DROP TABLE steps;
ALTER TABLE steps_v4 RENAME TO steps;
CREATE TRIGGER steps_of_deleted_trajectory AFTER DELETE ON trajectories BEGIN
  DELETE FROM steps WHERE trajectory_id = OLD.id;
END;
`;

/** The schema history, oldest first. Append new migrations; never edit released ones. */
export const MIGRATIONS: ReadonlyArray<Migration> = [
  { version: 1, name: "initial", sql: INITIAL },
  { version: 2, name: "knowledge_entries", sql: KNOWLEDGE_ENTRIES },
  { version: 3, name: "step_observations", sql: STEP_OBSERVATIONS },
  { version: 4, name: "steps_without_rowid", sql: STEPS_WITHOUT_ROWID },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** The table that records applied migrations; its presence marks a database as Rehearsal's. */
export const SCHEMA_VERSION_TABLE = "schema_version";

/** The schema version recorded in the database (0 for a new one). */
export function schemaVersion(db: Database.Database): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(SCHEMA_VERSION_TABLE);
  if (table === undefined) return 0;
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_version").get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/**
 * Brings the database to the newest version in `migrations`, each migration in its own immediate
 * transaction (so two processes opening the same database do not both apply it; the version table
 * is created in the first one, so a failed migration leaves the file as it was). Returns the version.
 * A database written by a newer Rehearsal is refused with a UserError.
 */
export function migrate(
  db: Database.Database,
  path: string,
  migrations: ReadonlyArray<Migration> = MIGRATIONS,
): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new InternalError(
        "store.migration_order",
        `migration ${m.name} has version ${m.version} but is number ${i + 1} in the list; versions must be 1, 2, 3, ...`,
      );
    }
  });
  const latest = migrations.length;
  const current = schemaVersion(db);
  if (current > latest) throw tooNew(path, current, latest);
  for (const m of migrations.slice(current)) {
    const apply = db.transaction(() => {
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${SCHEMA_VERSION_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
      );
      const now = schemaVersion(db);
      if (now > latest) throw tooNew(path, now, latest);
      if (now >= m.version) return;
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_version (version, name) VALUES (?, ?)").run(m.version, m.name);
    });
    try {
      apply.immediate();
    } catch (error) {
      if (error instanceof UserError) throw error;
      const kind = classifyFailure(error);
      if (kind !== undefined)
        throw storeError(kind, `migrating to schema version ${m.version} (${m.name})`, path, error);
      throw new InternalError(
        "store.migration_failed",
        `migrating the run store ${path} to schema version ${m.version} (${m.name}) failed: ${(error as Error).message}. The database is unchanged; restore it from a backup or use a new store directory.`,
        { cause: error },
      );
    }
  }
  return Math.max(current, latest);
}

export function tooNew(path: string, found: number, supported: number): UserError {
  return new UserError(
    STORE_ERROR_CODES.schemaTooNew,
    `the run store ${path} has schema version ${found}, but this Rehearsal supports versions up to ${supported}: it was written by a newer Rehearsal. Upgrade Rehearsal (npm install rehearsal@latest), or use another store directory.`,
    { details: { path, found, supported } },
  );
}
