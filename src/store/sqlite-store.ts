import { join } from "node:path";
import { createArtefactFiles } from "./artefact-files.ts";
import type { RunStore } from "./contract.ts";
import * as encode from "./encode.ts";
import * as rows from "./rows.ts";
import { openDatabase, type SqliteStoreOptions, sqliteCode } from "./sqlite-open.ts";
import { prepareStatements, type Statements } from "./statements.ts";
import { closedError, duplicateRunError, unknownRunError, unknownTreeError } from "./store-errors.ts";
import { createStoreHealth } from "./store-health.ts";
import { trajectoryProtocol } from "./trajectory-protocol.ts";

export { DATABASE_FILE, type SqliteStoreOptions } from "./sqlite-open.ts";

export interface SqliteRunStore extends RunStore {
  readonly kind: "sqlite";
  /** Path of the database file. */
  readonly path: string;
  /** The schema version after migration. */
  readonly schemaVersion: number;
  /** Opened read-only (asked for, or the store cannot be written): every write throws `store.read_only`. */
  readonly readOnly: boolean;
}

type PendingArtefact = encode.PendingArtefact;

/**
 * Opens (creating and migrating when needed) the SQLite run store in `dir`, or opens it read-only (see
 * `SqliteStoreOptions.readOnly`). Failures of the store itself (disk full, store deleted, damaged file)
 * are typed StoreErrors; see `createStoreHealth`.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteRunStore {
  const { db, path, version, readOnly } = openDatabase(options);
  const health = createStoreHealth({ dir: options.dir, path, readOnly });
  let st: Statements;
  try {
    st = health.guard("opening", () => prepareStatements(db));
  } catch (error) {
    db.close();
    throw error;
  }
  const files = createArtefactFiles(join(options.dir, "artefacts"));
  let closed = false;

  function open(operation: string): void {
    if (closed) throw closedError(operation);
  }
  /** A read: a failure of the store comes out as its StoreError. */
  function read<T>(operation: string, fn: () => T): T {
    open(operation);
    return health.guard(operation, fn);
  }
  /** A write: also checks, first, that the store may write and is still there. */
  function write<T>(operation: string, fn: () => T): T {
    open(operation);
    health.beforeWrite(operation);
    return health.guard(operation, fn);
  }
  /** Runs an insert, turning key conflicts into the caller's protocol errors. */
  function insert(run: () => void, conflicts: { primaryKey?: () => Error; foreignKey?: () => Error }): void {
    try {
      run();
    } catch (error) {
      const code = sqliteCode(error);
      if (code === "SQLITE_CONSTRAINT_PRIMARYKEY" && conflicts.primaryKey) throw conflicts.primaryKey();
      if (code === "SQLITE_CONSTRAINT_FOREIGNKEY" && conflicts.foreignKey) throw conflicts.foreignKey();
      throw error;
    }
  }

  /** Writes artefact files (before the transaction); their rows go in with the transaction. */
  function writeFiles(pending: ReadonlyArray<PendingArtefact>): void {
    for (const a of pending) files.write(a.sha256, a.mime, a.bytes);
  }
  function insertArtefactRows(pending: ReadonlyArray<PendingArtefact>): void {
    for (const a of pending)
      st.insertArtefact.run({ sha256: a.sha256, mime: a.mime, size: a.bytes.byteLength });
  }

  const protocol = trajectoryProtocol((id) => st.trajectoryState.get({ id }));

  const appendStepTx = db.transaction(
    (trajectoryId: string, row: rows.StepRow, pending: PendingArtefact[]) => {
      protocol.checkAppend(trajectoryId, row.idx);
      insertArtefactRows(pending);
      st.insertStep.run(row);
    },
  );

  const finishTx = db.transaction((row: encode.TrajectoryEndRow, pending: PendingArtefact[]) => {
    protocol.checkFinish(row.id);
    insertArtefactRows(pending);
    st.finishTrajectory.run({ ...row });
  });

  const updateRunTx = db.transaction((id: string, patch: unknown) => {
    const row = st.getRun.get(id);
    if (row === undefined) throw unknownRunError(`updateRun(${id})`, id);
    st.updateRun.run(encode.patchRunRow(row, patch));
  });

  const putNodesTx = db.transaction((nodeRows: rows.NodeRow[]) => {
    for (const row of nodeRows) {
      if (st.treeExists.get(row.tree_id) === undefined) throw unknownTreeError(row.id, row.tree_id);
      st.upsertNode.run(row);
    }
  });

  const store: SqliteRunStore = {
    kind: "sqlite",
    path,
    schemaVersion: version,
    readOnly,

    createRun(run) {
      return write("createRun", () => {
        const row = encode.encodeNewRun(run);
        insert(() => st.insertRun.run(row), { primaryKey: () => duplicateRunError(row.id) });
        return rows.decodeRun(row);
      });
    },
    getRun(id) {
      return read("getRun", () => {
        const row = st.getRun.get(id);
        return row && rows.decodeRun(row);
      });
    },
    listRuns(options = {}) {
      return read("listRuns", () => {
        const limit = encode.checkLimit(options.limit) ?? -1;
        return st.listRuns.all({ kind: options.kind ?? null, limit }).map(rows.decodeRun);
      });
    },
    updateRun(id, patch) {
      write("updateRun", () => updateRunTx.immediate(id, patch));
    },

    putTask(runId, task) {
      write("putTask", () => {
        const row = encode.encodeTask(runId, task);
        insert(() => st.upsertTask.run(row), {
          foreignKey: () => unknownRunError(`putTask(${runId})`, runId),
        });
      });
    },
    listTasks(runId) {
      return read("listTasks", () => st.listTasks.all(runId).map(rows.decodeTask));
    },

    startTrajectory(t) {
      write("startTrajectory", () => {
        const row = encode.encodeNewTrajectory(t);
        insert(() => st.insertTrajectory.run(row), {
          foreignKey: () => unknownRunError(`startTrajectory(${row.id})`, row.run_id),
          primaryKey: () => protocol.duplicate(row.id),
        });
      });
    },
    appendStep(trajectoryId, step) {
      write("appendStep", () => {
        const { row, pending } = encode.encodeStep(trajectoryId, step);
        writeFiles(pending);
        appendStepTx.immediate(trajectoryId, row, pending);
      });
    },
    finishTrajectory(trajectoryId, end) {
      write("finishTrajectory", () => {
        const { row, pending } = encode.encodeTrajectoryEnd(trajectoryId, end);
        writeFiles(pending);
        finishTx.immediate(row, pending);
      });
    },
    getTrajectory(id) {
      return read("getTrajectory", () => {
        const row = st.getTrajectory.get(id);
        return row && rows.decodeTrajectory(row, st.listStepData.all(id));
      });
    },
    listTrajectories(runId, filter = {}) {
      return read("listTrajectories", () =>
        st.listTrajectories
          .all({ run_id: runId, task_id: filter.taskId ?? null, status: filter.status ?? null })
          .map(rows.decodeTrajectoryHeader),
      );
    },
    *iterateTrajectories(runId, filter = {}) {
      const operation = "iterateTrajectories";
      const query = { run_id: runId, task_id: filter.taskId ?? null, status: filter.status ?? null };
      let after = { after_episode: -1, after_id: "" };
      for (;;) {
        const page = read(operation, () => st.pageTrajectories.all({ ...query, ...after, limit: 32 }));
        for (const row of page) {
          yield read(operation, () => rows.decodeTrajectory(row, st.listStepData.all(row.id)));
        }
        const last = page[page.length - 1];
        if (last === undefined || page.length < 32) return;
        after = { after_episode: last.episode_index, after_id: last.id };
      }
    },

    putArtefact(bytes, mime) {
      return write("putArtefact", () => {
        const artefact = encode.encodeArtefact(bytes, mime);
        const existing = st.getArtefact.get(artefact.sha256);
        if (existing !== undefined)
          return { sha256: artefact.sha256, mime: existing.mime, size: existing.size };
        writeFiles([artefact]);
        insertArtefactRows([artefact]);
        return { sha256: artefact.sha256, mime, size: bytes.byteLength };
      });
    },
    getArtefact(sha256) {
      return read("getArtefact", () => {
        if (!encode.isArtefactId(sha256)) return undefined;
        const row = st.getArtefact.get(sha256);
        return row && files.read(row.sha256, row.mime);
      });
    },

    putTree(tree) {
      write("putTree", () => {
        const row = encode.encodeTree(tree);
        insert(() => st.upsertTree.run(row), {
          foreignKey: () => unknownRunError(`putTree(${row.id})`, row.run_id),
        });
      });
    },
    getTree(id) {
      return read("getTree", () => {
        const row = st.getTree.get(id);
        return row && rows.decodeTree(row);
      });
    },
    listTrees(runId) {
      return read("listTrees", () => st.listTrees.all(runId).map(rows.decodeTree));
    },
    putNodes(nodes) {
      write("putNodes", () => putNodesTx.immediate(nodes.map(encode.encodeNode)));
    },
    listNodes(treeId, filter = {}) {
      return read("listNodes", () =>
        st.listNodes
          .all({
            tree_id: treeId,
            status: filter.status ?? null,
            any_parent: filter.parentId === undefined ? 1 : 0,
            parent_id: filter.parentId ?? null,
          })
          .map(rows.decodeNode),
      );
    },

    close() {
      if (closed) return;
      closed = true;
      if (!readOnly) leaveWalMode(db);
      db.close();
      health.afterClose();
    },
  };
  return store;
}

/**
 * On close, switches the file back to rollback-journal mode when no other connection has it open, so
 * that the store can later be opened read-only where the WAL's shared-memory file cannot be created
 * (a read-only mount or directory). The next writer switches it to WAL again. Best effort: with other
 * connections open the file stays in WAL mode until the last one closes.
 */
function leaveWalMode(db: import("better-sqlite3").Database): void {
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("journal_mode = DELETE");
  } catch {
    // Another connection holds the database; it leaves WAL mode when it closes.
  }
}
