import { join } from "node:path";
import { sha256Hex } from "../core/index.ts";
import { createArtefactFiles } from "./artefact-files.ts";
import { type RunStore, STORE_ERROR_CODES } from "./contract.ts";
import {
  checkArtefact,
  checkLimit,
  encodeNewRun,
  encodeNewTrajectory,
  encodeNode,
  encodeStep,
  encodeTask,
  encodeTrajectoryEnd,
  encodeTree,
  type PendingArtefact,
  patchRunRow,
  SHA256_HEX,
} from "./encode.ts";
import {
  decodeNode,
  decodeRun,
  decodeTask,
  decodeTrajectory,
  decodeTrajectoryHeader,
  decodeTree,
} from "./rows.ts";
import { openDatabase, type SqliteStoreOptions, sqliteCode } from "./sqlite-open.ts";
import { prepareStatements, type Statements } from "./statements.ts";
import { closedError, protocolError } from "./store-errors.ts";
import { trajectoryProtocol } from "./trajectory-protocol.ts";

export { DATABASE_FILE, type SqliteStoreOptions } from "./sqlite-open.ts";

export interface SqliteRunStore extends RunStore {
  readonly kind: "sqlite";
  /** Path of the database file. */
  readonly path: string;
  /** The schema version after migration. */
  readonly schemaVersion: number;
}

/** Opens (creating and migrating when needed) the SQLite run store in `dir`. */
export function openSqliteStore(options: SqliteStoreOptions): SqliteRunStore {
  const { db, path, version } = openDatabase(options);
  let st: Statements;
  try {
    st = prepareStatements(db);
  } catch (error) {
    db.close();
    throw error;
  }
  const files = createArtefactFiles(join(options.dir, "artefacts"));
  let closed = false;

  function open(operation: string): void {
    if (closed) throw closedError(operation);
  }

  function unknownRun(operation: string, runId: string): Error {
    return protocolError(
      STORE_ERROR_CODES.unknownRun,
      `${operation}: no run ${runId} in the store; call createRun first.`,
      { runId },
    );
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
    (trajectoryId: string, row: ReturnType<typeof encodeStep>, pending: PendingArtefact[]) => {
      protocol.checkAppend(trajectoryId, row.idx);
      insertArtefactRows(pending);
      st.insertStep.run(row);
    },
  );

  const finishTx = db.transaction(
    (row: ReturnType<typeof encodeTrajectoryEnd>, pending: PendingArtefact[]) => {
      protocol.checkFinish(row.id);
      insertArtefactRows(pending);
      st.finishTrajectory.run({ ...row });
    },
  );

  const updateRunTx = db.transaction((id: string, patch: unknown) => {
    const row = st.getRun.get(id);
    if (row === undefined) throw unknownRun(`updateRun(${id})`, id);
    st.updateRun.run(patchRunRow(row, patch));
  });

  const putNodesTx = db.transaction((rows: ReturnType<typeof encodeNode>[]) => {
    for (const row of rows) {
      if (st.treeExists.get(row.tree_id) === undefined) {
        throw protocolError(
          STORE_ERROR_CODES.unknownTree,
          `putNodes(node ${row.id}): no tree ${row.tree_id} in the store; call putTree first.`,
          { treeId: row.tree_id },
        );
      }
      st.upsertNode.run(row);
    }
  });

  const store: SqliteRunStore = {
    kind: "sqlite",
    path,
    schemaVersion: version,

    createRun(run) {
      open("createRun");
      const row = encodeNewRun(run);
      try {
        st.insertRun.run(row);
      } catch (error) {
        if (sqliteCode(error) === "SQLITE_CONSTRAINT_PRIMARYKEY") {
          throw protocolError(
            STORE_ERROR_CODES.duplicateId,
            `createRun(${row.id}): a run with this id already exists; generate a fresh run id.`,
            { runId: row.id },
          );
        }
        throw error;
      }
      return decodeRun(row);
    },
    getRun(id) {
      open("getRun");
      const row = st.getRun.get(id);
      return row && decodeRun(row);
    },
    listRuns(options = {}) {
      open("listRuns");
      const limit = checkLimit(options.limit) ?? -1;
      return st.listRuns.all({ kind: options.kind ?? null, limit }).map(decodeRun);
    },
    updateRun(id, patch) {
      open("updateRun");
      updateRunTx.immediate(id, patch);
    },

    putTask(runId, task) {
      open("putTask");
      const row = encodeTask(runId, task);
      try {
        st.upsertTask.run(row);
      } catch (error) {
        if (sqliteCode(error) === "SQLITE_CONSTRAINT_FOREIGNKEY")
          throw unknownRun(`putTask(${runId})`, runId);
        throw error;
      }
    },
    listTasks(runId) {
      open("listTasks");
      return st.listTasks.all(runId).map(decodeTask);
    },

    startTrajectory(t) {
      open("startTrajectory");
      const row = encodeNewTrajectory(t);
      try {
        st.insertTrajectory.run(row);
      } catch (error) {
        const code = sqliteCode(error);
        if (code === "SQLITE_CONSTRAINT_FOREIGNKEY")
          throw unknownRun(`startTrajectory(${row.id})`, row.run_id);
        if (code === "SQLITE_CONSTRAINT_PRIMARYKEY") throw protocol.duplicate(row.id);
        throw error;
      }
    },
    appendStep(trajectoryId, step) {
      open("appendStep");
      const pending: PendingArtefact[] = [];
      const row = encodeStep(trajectoryId, step, pending);
      writeFiles(pending);
      appendStepTx.immediate(trajectoryId, row, pending);
    },
    finishTrajectory(trajectoryId, end) {
      open("finishTrajectory");
      const pending: PendingArtefact[] = [];
      const row = encodeTrajectoryEnd(trajectoryId, end, pending);
      writeFiles(pending);
      finishTx.immediate(row, pending);
    },
    getTrajectory(id) {
      open("getTrajectory");
      const row = st.getTrajectory.get(id);
      return row && decodeTrajectory(row, st.listStepData.all(id));
    },
    listTrajectories(runId, filter = {}) {
      open("listTrajectories");
      return st.listTrajectories
        .all({ run_id: runId, task_id: filter.taskId ?? null, status: filter.status ?? null })
        .map(decodeTrajectoryHeader);
    },
    *iterateTrajectories(runId, filter = {}) {
      const query = { run_id: runId, task_id: filter.taskId ?? null, status: filter.status ?? null };
      let after = { after_episode: -1, after_id: "" };
      for (;;) {
        open("iterateTrajectories");
        const page = st.pageTrajectories.all({ ...query, ...after, limit: 32 });
        for (const row of page) {
          open("iterateTrajectories");
          yield decodeTrajectory(row, st.listStepData.all(row.id));
        }
        const last = page[page.length - 1];
        if (last === undefined || page.length < 32) return;
        after = { after_episode: last.episode_index, after_id: last.id };
      }
    },

    putArtefact(bytes, mime) {
      open("putArtefact");
      checkArtefact(bytes, mime);
      const sha256 = sha256Hex(bytes);
      const existing = st.getArtefact.get(sha256);
      if (existing !== undefined) return { sha256, mime: existing.mime, size: existing.size };
      const pending = [{ sha256, mime, bytes }];
      writeFiles(pending);
      insertArtefactRows(pending);
      return { sha256, mime, size: bytes.byteLength };
    },
    getArtefact(sha256) {
      open("getArtefact");
      if (!SHA256_HEX.test(sha256)) return undefined;
      const row = st.getArtefact.get(sha256);
      return row && files.read(row.sha256, row.mime);
    },

    putTree(tree) {
      open("putTree");
      const row = encodeTree(tree);
      try {
        st.upsertTree.run(row);
      } catch (error) {
        if (sqliteCode(error) === "SQLITE_CONSTRAINT_FOREIGNKEY")
          throw unknownRun(`putTree(${row.id})`, row.run_id);
        throw error;
      }
    },
    getTree(id) {
      open("getTree");
      const row = st.getTree.get(id);
      return row && decodeTree(row);
    },
    listTrees(runId) {
      open("listTrees");
      return st.listTrees.all(runId).map(decodeTree);
    },
    putNodes(nodes) {
      open("putNodes");
      putNodesTx.immediate(nodes.map(encodeNode));
    },
    listNodes(treeId, filter = {}) {
      open("listNodes");
      return st.listNodes
        .all({
          tree_id: treeId,
          status: filter.status ?? null,
          any_parent: filter.parentId === undefined ? 1 : 0,
          parent_id: filter.parentId ?? null,
        })
        .map(decodeNode);
    },

    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
  return store;
}
