import { join } from "node:path";
import { createArtefactFiles } from "./artefact-files.ts";
import { createBatchCommitter } from "./batch-commit.ts";
import type { PageOptions, RunStore, TrajectoryFilter, TreeNodeFilter } from "./contract.ts";
import * as encode from "./encode.ts";
import * as encodeStep from "./encode-step.ts";
import { createMiddleRefs, createObservationRefs } from "./observation-refs.ts";
import * as rows from "./rows.ts";
import { insert, leaveWalMode, openDatabase, type SqliteStoreOptions } from "./sqlite-open.ts";
import { type NodeQuery, prepareStatements, type Statements, type TrajectoryQuery } from "./statements.ts";
import { createStepBatch, parseBatchOptions } from "./step-batch.ts";
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

function trajectoryQuery(runId: string, filter: TrajectoryFilter): TrajectoryQuery {
  return { run_id: runId, task_id: filter.taskId ?? null, status: filter.status ?? null };
}

function nodeQuery(treeId: string, filter: TreeNodeFilter): NodeQuery {
  return {
    tree_id: treeId,
    status: filter.status ?? null,
    any_parent: filter.parentId === undefined ? 1 : 0,
    parent_id: filter.parentId ?? null,
  };
}

/**
 * Opens (creating and migrating when needed) the SQLite run store in `dir`, or opens it read-only (see
 * `SqliteStoreOptions.readOnly`). Failures of the store itself (disk full, store deleted, damaged file)
 * are typed StoreErrors; see `createStoreHealth`.
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteRunStore {
  const batchOptions = parseBatchOptions(options);
  const batch = createStepBatch(batchOptions, () => performance.now());
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
  /** Observations kept once: a step references the stored text of an observation seen before. */
  const observations = createObservationRefs((text) =>
    Number(st.insertObservation.run(text).lastInsertRowid),
  );
  /** Step middles kept once they recur (see `StepRow.middle`). */
  const middles = createMiddleRefs((text) => Number(st.insertMiddle.run(text).lastInsertRowid));
  let closed = false;

  /** Before every call: the store is open, and a failed timer commit is tried again and thrown. */
  function open(operation: string): void {
    if (closed) throw closedError(operation);
    committer.recover(operation);
  }
  /** A read: a failure of the store comes out as its StoreError. Waiting steps are committed first. */
  function read<T>(operation: string, fn: () => T): T {
    open(operation);
    committer.commit(operation);
    return health.guard(operation, fn);
  }
  /** A write: also checks, first, that the store may write and is still there. */
  function write<T>(operation: string, fn: () => T): T {
    open(operation);
    committer.commit(operation);
    return writeNow(operation, fn);
  }
  function writeNow<T>(operation: string, fn: () => T): T {
    health.beforeWrite(operation);
    return health.guard(operation, fn);
  }
  /** Writes artefact files (before the transaction); their rows go in with the transaction. */
  function writeFiles(pending: ReadonlyArray<PendingArtefact>): void {
    for (const a of pending) files.write(a.sha256, a.mime, a.bytes);
  }
  function insertArtefactRows(pending: ReadonlyArray<PendingArtefact>): void {
    for (const a of pending)
      st.insertArtefact.run({ sha256: a.sha256, mime: a.mime, size: a.bytes.byteLength });
  }

  /** A listing read whole, or one page of it (`page` checked), each row decoded. */
  function listPage<Q extends object, R, T>(
    operation: string,
    lists: { all: { all(query: Q): R[] }; page: { all(query: Q & PageOptions): R[] } },
    query: Q,
    page: PageOptions | undefined,
    decode: (row: R) => T,
  ): T[] {
    return read(operation, () => {
      const found =
        page === undefined
          ? lists.all.all(query)
          : lists.page.all({ ...query, ...encode.checkPage(page, operation) });
      return found.map(decode);
    });
  }

  /** The rules on the committed rows (inside a transaction). */
  const protocol = trajectoryProtocol((id) => st.trajectoryState.get({ id }));
  /**
   * The rules for a call: a trajectory whose end waits is finished, one with waiting steps goes on from
   * the last one, and one whose start waits has no steps yet; otherwise its committed rows decide.
   */
  const callProtocol = trajectoryProtocol((id) => {
    const end = batch.pendingEnd(id);
    if (end !== undefined) return { status: end.status, step_count: 0 };
    const next = batch.nextIndex(id) ?? (batch.pendingStart(id) === undefined ? undefined : 0);
    return next === undefined ? st.trajectoryState.get({ id }) : { status: "running", step_count: next };
  });
  const committer = createBatchCommitter({
    db,
    st,
    batch,
    batchMs: batchOptions.batchMs,
    health,
    observations,
    middles,
    protocol,
    insertArtefactRows,
  });
  /** Before a start, a step or an end joins the batch: the store is open and may write. */
  function beforeJoin(operation: string): void {
    open(operation);
    if (readOnly) health.beforeWrite(operation);
  }
  /**
   * After a step or an end joined the batch: a due batch commits now. When that commit fails, this
   * call's entry was not written and is taken back; the earlier ones wait for the next commit. A
   * batch that is not due commits later, or by its timer.
   */
  function afterJoin<R>(operation: string, due: boolean, entry: R, takeBack: (entry: R) => void): void {
    if (due) {
      try {
        committer.commit(operation);
      } catch (error) {
        takeBack(entry);
        throw error;
      }
    }
    committer.arm();
  }
  const takeBackStep = (row: rows.StepRow) => batch.remove(row);
  const takeBackEnd = (row: encode.TrajectoryEndRow) => batch.removeEnd(row.id);

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
      // The start joins the batch: it commits with the trajectory's first batch of steps or its end.
      // Like a step, it is checked against the store's file (still there) by the commit that writes it.
      const operation = "startTrajectory";
      beforeJoin(operation);
      health.guard(operation, () => {
        const row = encode.encodeNewTrajectory(t);
        const found = st.startCheck.get({ id: row.id, run_id: row.run_id });
        if (batch.pendingStart(row.id) !== undefined || found?.taken != null)
          throw protocol.duplicate(row.id);
        if (found?.run == null) throw unknownRunError(`startTrajectory(${row.id})`, row.run_id);
        batch.start(row);
      });
      committer.arm();
    },
    // A step or an end joins the batch (checked, and nothing written but artefact files); no closure is
    // made per call, as these run for every step.
    appendStep(trajectoryId, step) {
      const operation = "appendStep";
      beforeJoin(operation);
      let row: rows.StepRow;
      let due: boolean;
      try {
        const encoded = encodeStep.encodeStep(trajectoryId, step);
        row = encoded.row;
        // The common case, checked in place: the next step of a trajectory with steps in the batch.
        if (batch.nextIndex(trajectoryId) !== row.idx || batch.pendingEnd(trajectoryId) !== undefined)
          callProtocol.checkAppend(trajectoryId, row.idx);
        writeFiles(encoded.pending);
        due = batch.add(row, encoded.pending);
      } catch (error) {
        throw health.failure(operation, error);
      }
      afterJoin(operation, due, row, takeBackStep);
    },
    finishTrajectory(trajectoryId, end) {
      // The end commits with its trajectory's last steps, or later.
      const operation = "finishTrajectory";
      beforeJoin(operation);
      let row: encode.TrajectoryEndRow;
      let due: boolean;
      try {
        const encoded = encode.encodeTrajectoryEnd(trajectoryId, end);
        row = encoded.row;
        callProtocol.checkFinish(row.id);
        writeFiles(encoded.pending);
        due = batch.end(row, encoded.pending);
      } catch (error) {
        throw health.failure(operation, error);
      }
      afterJoin(operation, due, row, takeBackEnd);
    },
    getTrajectory(id) {
      return read("getTrajectory", () => {
        const row = st.getTrajectory.get(id);
        return row && rows.decodeTrajectory(row, st.listStepData.all(id));
      });
    },
    listTrajectories(runId, filter = {}, page) {
      const query = trajectoryQuery(runId, filter);
      const lists = { all: st.listTrajectories, page: st.listTrajectoryPage };
      return listPage("listTrajectories", lists, query, page, rows.decodeTrajectoryHeader);
    },
    countTrajectories(runId, filter = {}) {
      return read("countTrajectories", () => st.countTrajectories.get(trajectoryQuery(runId, filter)) ?? 0);
    },
    getTrajectoryHeader(id) {
      return read("getTrajectoryHeader", () => {
        const row = st.getTrajectory.get(id);
        return row && rows.decodeTrajectoryHeader(row);
      });
    },
    listSteps(trajectoryId, page) {
      return read("listSteps", () => {
        const { offset, limit } = encode.checkPage(page, "listSteps");
        return st.stepDataPage
          .all(trajectoryId, offset, offset + limit)
          .map((text) => rows.decodeStep(trajectoryId, text));
      });
    },
    *iterateTrajectories(runId, filter = {}) {
      const operation = "iterateTrajectories";
      const query = trajectoryQuery(runId, filter);
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
    listNodes(treeId, filter = {}, page) {
      const lists = { all: st.listNodes, page: st.listNodePage };
      return listPage("listNodes", lists, nodeQuery(treeId, filter), page, rows.decodeNode);
    },
    countNodes(treeId, filter = {}) {
      return read("countNodes", () => st.countNodes.get(nodeQuery(treeId, filter)) ?? 0);
    },
    getNode(treeId, nodeId) {
      return read("getNode", () => {
        const row = st.getNode.get(treeId, nodeId);
        return row && rows.decodeNode(row);
      });
    },

    close() {
      if (closed) return;
      let failure: unknown;
      try {
        committer.recover("close");
        committer.commit("close");
      } catch (error) {
        failure = error;
      }
      committer.stop();
      closed = true;
      if (!readOnly) leaveWalMode(db);
      db.close();
      if (failure !== undefined) throw failure;
      health.afterClose();
    },
  };
  return store;
}
