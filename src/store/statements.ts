import type Database from "better-sqlite3";
import type { TrajectoryEndRow } from "./encode.ts";
import type {
  ArtefactRow,
  NodeRow,
  RunRow,
  StepRow,
  TaskRow,
  TrajectoryRow,
  TrajectoryRowWithCount,
  TreeRow,
} from "./rows.ts";

type Db = Database.Database;
/** A step row's columns, in the order `insertSteps` binds them (one row after the other). */
export type StepColumn =
  | StepRow["trajectory_id"]
  | StepRow["idx"]
  | StepRow["action_type"]
  | StepRow["reward"]
  | StepRow["data"]
  | null;
export const STEP_COLUMNS = 9;
/**
 * The sizes (rows per statement) of the step inserts, biggest first: a batch goes in as few executions
 * as these sizes allow. One execution per 32 rows instead of one per row took ~35 % off the insert cost
 * per step (a bare better-sqlite3 loop of FrozenLake-sized rows: ~5 µs a row alone, ~3 µs in groups).
 */
export const STEP_INSERT_SIZES = [32, 8, 1] as const;
type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

/** Filter parameters: null means "any". */
export interface TrajectoryQuery {
  run_id: string;
  task_id: string | null;
  status: string | null;
}

export interface TrajectoryPageQuery extends TrajectoryQuery {
  after_episode: number;
  after_id: string;
  limit: number;
}

export interface NodeQuery {
  tree_id: string;
  status: string | null;
  /** 1: any parent; 0: parent_id IS @parent_id (null selects roots). */
  any_parent: 0 | 1;
  parent_id: string | null;
}

const TRAJECTORY_FILTER = `run_id = @run_id
  AND (@task_id IS NULL OR task_id = @task_id)
  AND (@status IS NULL OR status = @status)`;

const NODE_FILTER = `tree_id = @tree_id
  AND (@status IS NULL OR status = @status)
  AND (@any_parent = 1 OR parent_id IS @parent_id)`;

/**
 * A step's stored text: its whole `data`, or, with an observation kept once, the head rebuilt from `idx`
 * (`stepHead`), the observation's text, the middle's text when kept once, and the rest in `data`.
 */
const STEP_TEXT = `CASE WHEN observation_id IS NULL THEN data ELSE '{"index":' || idx || ',"observation":' ||
  (SELECT text FROM observations o WHERE o.id = observation_id) ||
  COALESCE((SELECT text FROM step_middles m WHERE m.id = middle_id), '') || data END`;

const TRAJECTORY_COLUMNS = `t.*, (SELECT COUNT(*) FROM steps s WHERE s.trajectory_id = t.id) AS step_count`;

/** Every statement the SQLite store runs, prepared once per store. */
export function prepareStatements(db: Db) {
  return {
    insertRun: db.prepare(`INSERT INTO runs (id, kind, status, seed, config, code_version, created_at_ms,
      updated_at_ms, summary) VALUES (@id, @kind, @status, @seed, @config, @code_version, @created_at_ms,
      @updated_at_ms, @summary)`) as Stmt<[RunRow]>,
    getRun: db.prepare("SELECT * FROM runs WHERE id = ?") as Stmt<[string], RunRow>,
    listRuns: db.prepare(`SELECT * FROM runs WHERE (@kind IS NULL OR kind = @kind)
      ORDER BY created_at_ms DESC, id DESC LIMIT @limit`) as Stmt<
      [{ kind: string | null; limit: number }],
      RunRow
    >,
    updateRun: db.prepare(`UPDATE runs SET status = @status, summary = @summary,
      updated_at_ms = @updated_at_ms WHERE id = @id`) as Stmt<[RunRow]>,

    upsertTask: db.prepare(`INSERT INTO tasks (run_id, task_id, data) VALUES (@run_id, @task_id, @data)
      ON CONFLICT (run_id, task_id) DO UPDATE SET data = excluded.data`) as Stmt<[TaskRow]>,
    listTasks: db.prepare("SELECT * FROM tasks WHERE run_id = ? ORDER BY rowid") as Stmt<[string], TaskRow>,

    insertTrajectory: db.prepare(`INSERT INTO trajectories (id, run_id, task_id, episode_index, seed, policy,
      status, started_at_ms, ended_at_ms, outcome, error, final_observation, meta, schema_version)
      VALUES (@id, @run_id, @task_id, @episode_index, @seed, @policy, @status, @started_at_ms, @ended_at_ms,
      @outcome, @error, @final_observation, @meta, @schema_version)`) as Stmt<[TrajectoryRow]>,
    /** What a start needs to hold: its run exists (`run` 1) and its id is free (`taken` null). */
    startCheck: db.prepare(`SELECT (SELECT 1 FROM runs WHERE id = @run_id) AS run,
      (SELECT 1 FROM trajectories WHERE id = @id) AS taken`) as Stmt<
      [{ id: string; run_id: string }],
      { run: number | null; taken: number | null }
    >,
    // The step count is derived from the steps' primary key (a write per step stays one b-tree insert).
    trajectoryState: db.prepare(`SELECT status,
      (SELECT COALESCE(MAX(idx) + 1, 0) FROM steps WHERE trajectory_id = @id) AS step_count
      FROM trajectories WHERE id = @id`) as Stmt<[{ id: string }], { status: string; step_count: number }>,
    getTrajectory: db.prepare(`SELECT ${TRAJECTORY_COLUMNS} FROM trajectories t WHERE id = ?`) as Stmt<
      [string],
      TrajectoryRowWithCount
    >,
    listTrajectories: db.prepare(`SELECT ${TRAJECTORY_COLUMNS} FROM trajectories t WHERE ${TRAJECTORY_FILTER}
      ORDER BY episode_index, id`) as Stmt<[TrajectoryQuery], TrajectoryRowWithCount>,
    listTrajectoryPage:
      db.prepare(`SELECT ${TRAJECTORY_COLUMNS} FROM trajectories t WHERE ${TRAJECTORY_FILTER}
      ORDER BY episode_index, id LIMIT @limit OFFSET @offset`) as Stmt<
        [TrajectoryQuery & { limit: number; offset: number }],
        TrajectoryRowWithCount
      >,
    countTrajectories: db
      .prepare(`SELECT COUNT(*) FROM trajectories WHERE ${TRAJECTORY_FILTER}`)
      .pluck() as Stmt<[TrajectoryQuery], number>,
    pageTrajectories: db.prepare(`SELECT ${TRAJECTORY_COLUMNS} FROM trajectories t WHERE ${TRAJECTORY_FILTER}
      AND (episode_index, id) > (@after_episode, @after_id)
      ORDER BY episode_index, id LIMIT @limit`) as Stmt<[TrajectoryPageQuery], TrajectoryRowWithCount>,
    finishTrajectory: db.prepare(`UPDATE trajectories SET status = @status, ended_at_ms = @ended_at_ms,
      outcome = @outcome, error = @error, final_observation = @final_observation WHERE id = @id`) as Stmt<
      [TrajectoryEndRow]
    >,

    // Positional parameters: binding them costs less than naming them, and this runs for every step.
    // They are passed as arguments (`run(...values)`): better-sqlite3 reads an array passed whole element
    // by element through V8's property lookup, which cost ~0.2 µs more per row of 9 values.
    insertSteps: STEP_INSERT_SIZES.map(
      (rows) =>
        db.prepare(`INSERT INTO steps (trajectory_id, idx, action_type, reward, terminated, truncated,
      observation_id, middle_id, data) VALUES ${Array(rows).fill("(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}`) as Stmt<
          StepColumn[]
        >,
    ) as ReadonlyArray<Stmt<StepColumn[]>>,
    insertObservation: db.prepare("INSERT INTO observations (text) VALUES (?)") as Stmt<[string]>,
    insertMiddle: db.prepare("INSERT INTO step_middles (text) VALUES (?)") as Stmt<[string]>,
    stepDataPage: db
      .prepare(`SELECT ${STEP_TEXT} FROM steps WHERE trajectory_id = ? AND idx >= ? AND idx < ? ORDER BY idx`)
      .pluck() as Stmt<[string, number, number], string>,
    listStepData: db
      .prepare(`SELECT ${STEP_TEXT} FROM steps WHERE trajectory_id = ? ORDER BY idx`)
      .pluck() as Stmt<[string], string>,

    insertArtefact: db.prepare(
      "INSERT OR IGNORE INTO artefacts (sha256, mime, size) VALUES (@sha256, @mime, @size)",
    ) as Stmt<[ArtefactRow]>,
    getArtefact: db.prepare("SELECT * FROM artefacts WHERE sha256 = ?") as Stmt<[string], ArtefactRow>,

    upsertTree: db.prepare(`INSERT INTO trees (id, run_id, task_id, seed, status, data)
      VALUES (@id, @run_id, @task_id, @seed, @status, @data)
      ON CONFLICT (id) DO UPDATE SET run_id = excluded.run_id, task_id = excluded.task_id,
      seed = excluded.seed, status = excluded.status, data = excluded.data`) as Stmt<[TreeRow]>,
    getTree: db.prepare("SELECT * FROM trees WHERE id = ?") as Stmt<[string], TreeRow>,
    listTrees: db.prepare("SELECT * FROM trees WHERE run_id = ? ORDER BY rowid") as Stmt<[string], TreeRow>,
    treeExists: db.prepare("SELECT 1 FROM trees WHERE id = ?").pluck() as Stmt<[string], number>,
    upsertNode: db.prepare(`INSERT INTO tree_nodes (tree_id, id, parent_id, depth, status, data)
      VALUES (@tree_id, @id, @parent_id, @depth, @status, @data)
      ON CONFLICT (tree_id, id) DO UPDATE SET parent_id = excluded.parent_id, depth = excluded.depth,
      status = excluded.status, data = excluded.data`) as Stmt<[NodeRow]>,
    listNodes: db.prepare(`SELECT * FROM tree_nodes WHERE ${NODE_FILTER}
      ORDER BY depth, rowid`) as Stmt<[NodeQuery], NodeRow>,
    listNodePage: db.prepare(`SELECT * FROM tree_nodes WHERE ${NODE_FILTER}
      ORDER BY depth, rowid LIMIT @limit OFFSET @offset`) as Stmt<
      [NodeQuery & { limit: number; offset: number }],
      NodeRow
    >,
    countNodes: db.prepare(`SELECT COUNT(*) FROM tree_nodes WHERE ${NODE_FILTER}`).pluck() as Stmt<
      [NodeQuery],
      number
    >,
    getNode: db.prepare("SELECT * FROM tree_nodes WHERE tree_id = ? AND id = ?") as Stmt<
      [string, string],
      NodeRow
    >,

    runExists: db.prepare("SELECT 1 FROM runs WHERE id = ?").pluck() as Stmt<[string], number>,
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
