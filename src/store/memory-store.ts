import type { PageOptions, RunStore, TreeNodeFilter } from "./contract.ts";
import * as encode from "./encode.ts";
import * as encodeStep from "./encode-step.ts";
import type {
  ArtefactRow,
  NodeRow,
  RunRow,
  TaskRow,
  TrajectoryRow,
  TrajectoryRowWithCount,
  TreeRow,
} from "./rows.ts";
import * as rows from "./rows.ts";
import { StepRange, StepTable } from "./step-table.ts";
import { closedError, duplicateRunError, unknownRunError, unknownTreeError } from "./store-errors.ts";
import { trajectoryProtocol } from "./trajectory-protocol.ts";

/*
 * The in-memory store keeps the same rows (JSON text) as the SQLite store, so it shares encoding,
 * validation, ordering and copy semantics: nothing a caller holds aliases stored state.
 */

function byEpisode(a: TrajectoryRow, b: TrajectoryRow): number {
  return a.episode_index - b.episode_index || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function byNewest(a: RunRow, b: RunRow): number {
  return b.created_at_ms - a.created_at_ms || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** A trajectory's row and its steps' rows in the store's step table. */
class StoredTrajectory extends StepRange {
  constructor(readonly row: TrajectoryRow) {
    super();
  }
}

function pageOf<T>(all: T[], page: PageOptions | undefined, operation: string): T[] {
  if (page === undefined) return all;
  const { offset, limit } = encode.checkPage(page, operation);
  return all.slice(offset, offset + limit);
}

/** A run store in memory with the SQLite store's semantics; for tests and throwaway runs. */
export function createMemoryStore(): RunStore {
  const runs = new Map<string, RunRow>();
  const tasks = new Map<string, Map<string, TaskRow>>();
  const trajectories = new Map<string, StoredTrajectory>();
  /** Every trajectory's steps in one table (texts joined on read); each trajectory knows its rows. */
  const table = new StepTable();
  const artefacts = new Map<string, { row: ArtefactRow; bytes: Uint8Array }>();
  const trees = new Map<string, TreeRow>();
  /** Nodes per tree, keyed by node id, in order of first insertion. */
  const nodes = new Map<string, Map<string, NodeRow>>();
  /** The trajectory started last: the one a rollout appends its steps to (saves a lookup per step). */
  let latest: StoredTrajectory | undefined;
  let closed = false;

  function open(operation: string): void {
    if (closed) throw closedError(operation);
  }

  /** The stored trajectory `id`; the one started last (a rollout's current one) without a map lookup. */
  function stored(id: string): StoredTrajectory | undefined {
    return id === latest?.row.id ? latest : trajectories.get(id);
  }

  function requireRun(operation: string, runId: string): void {
    if (!runs.has(runId)) throw unknownRunError(operation, runId);
  }

  function storeArtefacts(pending: ReadonlyArray<encode.PendingArtefact>): void {
    for (const a of pending) {
      if (!artefacts.has(a.sha256)) {
        artefacts.set(a.sha256, {
          row: { sha256: a.sha256, mime: a.mime, size: a.bytes.byteLength },
          bytes: new Uint8Array(a.bytes),
        });
      }
    }
  }

  const protocol = trajectoryProtocol((id) => {
    const t = trajectories.get(id);
    return t && { status: t.row.status, step_count: t.length };
  });

  function withCount(t: StoredTrajectory): TrajectoryRowWithCount {
    return { ...t.row, step_count: t.length };
  }

  function trajectoryRows(runId: string, filter: { taskId?: string; status?: string }): StoredTrajectory[] {
    return [...trajectories.values()]
      .filter(
        ({ row }) =>
          row.run_id === runId &&
          (filter.taskId === undefined || row.task_id === filter.taskId) &&
          (filter.status === undefined || row.status === filter.status),
      )
      .sort((a, b) => byEpisode(a.row, b.row));
  }

  function nodeRows(treeId: string, filter: TreeNodeFilter): NodeRow[] {
    return [...(nodes.get(treeId)?.values() ?? [])]
      .filter(
        (n) =>
          (filter.status === undefined || n.status === filter.status) &&
          (filter.parentId === undefined || n.parent_id === filter.parentId),
      )
      .sort((a, b) => a.depth - b.depth);
  }

  return {
    kind: "memory",

    createRun(run) {
      open("createRun");
      const row = encode.encodeNewRun(run);
      if (runs.has(row.id)) throw duplicateRunError(row.id);
      runs.set(row.id, row);
      return rows.decodeRun(row);
    },
    getRun(id) {
      open("getRun");
      const row = runs.get(id);
      return row && rows.decodeRun(row);
    },
    listRuns(options = {}) {
      open("listRuns");
      const limit = encode.checkLimit(options.limit);
      const selected = [...runs.values()]
        .filter((r) => options.kind === undefined || r.kind === options.kind)
        .sort(byNewest);
      return (limit === undefined ? selected : selected.slice(0, limit)).map(rows.decodeRun);
    },
    updateRun(id, patch) {
      open("updateRun");
      requireRun(`updateRun(${id})`, id);
      runs.set(id, encode.patchRunRow(runs.get(id)!, patch));
    },

    putTask(runId, task) {
      open("putTask");
      const row = encode.encodeTask(runId, task);
      requireRun(`putTask(${runId})`, runId);
      let byId = tasks.get(runId);
      if (byId === undefined) {
        byId = new Map();
        tasks.set(runId, byId);
      }
      byId.set(row.task_id, row);
    },
    listTasks(runId) {
      open("listTasks");
      return [...(tasks.get(runId)?.values() ?? [])].map(rows.decodeTask);
    },

    startTrajectory(t) {
      open("startTrajectory");
      const row = encode.encodeNewTrajectory(t);
      requireRun(`startTrajectory(${row.id})`, row.run_id);
      if (trajectories.has(row.id)) throw protocol.duplicate(row.id);
      latest = new StoredTrajectory(row);
      trajectories.set(row.id, latest);
    },
    appendStep(trajectoryId, step) {
      open("appendStep");
      // Fast path: a valid step appended in order to a running trajectory, checked in place; anything
      // else goes through the shared encoding and protocol for their exact errors.
      const t = stored(trajectoryId);
      if (t?.row.status === "running" && table.tryAppend(t, step)) return;
      const { row, pending, columns } = encodeStep.encodeStepData(
        step,
        encodeStep.appendOperation(trajectoryId, step),
      );
      protocol.checkAppend(trajectoryId, columns.idx);
      storeArtefacts(pending);
      if (t !== undefined) table.append(t, row);
    },
    finishTrajectory(trajectoryId, end) {
      open("finishTrajectory");
      const { row, pending } = encode.encodeTrajectoryEnd(trajectoryId, end);
      const t = stored(trajectoryId);
      // The protocol's check (and its error) only when the trajectory is not a running one of this store.
      if (t?.row.status !== "running") protocol.checkFinish(trajectoryId);
      storeArtefacts(pending);
      // Updated in place (rows never leave the store; readers decode them at once): a spread into a new
      // row cost microseconds an episode.
      if (t === undefined) return;
      const kept = t.row;
      kept.status = row.status;
      kept.ended_at_ms = row.ended_at_ms;
      kept.outcome = row.outcome;
      kept.error = row.error;
      kept.final_observation = row.final_observation;
    },
    getTrajectory(id) {
      open("getTrajectory");
      const t = trajectories.get(id);
      return t && rows.decodeTrajectory(t.row, table.texts(t));
    },
    listTrajectories(runId, filter = {}, page) {
      open("listTrajectories");
      const selected = pageOf(trajectoryRows(runId, filter), page, "listTrajectories");
      return selected.map((t) => rows.decodeTrajectoryHeader(withCount(t)));
    },
    countTrajectories(runId, filter = {}) {
      open("countTrajectories");
      return trajectoryRows(runId, filter).length;
    },
    getTrajectoryHeader(id) {
      open("getTrajectoryHeader");
      const t = trajectories.get(id);
      return t && rows.decodeTrajectoryHeader(withCount(t));
    },
    listSteps(trajectoryId, page) {
      open("listSteps");
      const { offset, limit } = encode.checkPage(page, "listSteps");
      const t = trajectories.get(trajectoryId);
      if (t === undefined) return [];
      return table.texts(t, offset, offset + limit).map((text) => rows.decodeStep(trajectoryId, text));
    },
    *iterateTrajectories(runId, filter = {}) {
      open("iterateTrajectories");
      // Rows are updated in place: a trajectory finished since the list was taken shows its new status.
      for (const t of trajectoryRows(runId, filter)) {
        open("iterateTrajectories");
        if (filter.status !== undefined && t.row.status !== filter.status) continue;
        yield rows.decodeTrajectory(t.row, table.texts(t));
      }
    },

    putArtefact(bytes, mime) {
      open("putArtefact");
      const artefact = encode.encodeArtefact(bytes, mime);
      storeArtefacts([artefact]);
      const stored = artefacts.get(artefact.sha256);
      return stored ? { ...stored.row } : { sha256: artefact.sha256, mime, size: bytes.byteLength };
    },
    getArtefact(sha256) {
      open("getArtefact");
      if (!encode.isArtefactId(sha256)) return undefined;
      const stored = artefacts.get(sha256);
      return stored && new Uint8Array(stored.bytes);
    },

    putTree(tree) {
      open("putTree");
      const row = encode.encodeTree(tree);
      requireRun(`putTree(${row.id})`, row.run_id);
      trees.set(row.id, row);
    },
    getTree(id) {
      open("getTree");
      const row = trees.get(id);
      return row && rows.decodeTree(row);
    },
    listTrees(runId) {
      open("listTrees");
      return [...trees.values()].filter((t) => t.run_id === runId).map(rows.decodeTree);
    },
    putNodes(input) {
      open("putNodes");
      const nodeRows = input.map(encode.encodeNode);
      for (const row of nodeRows) {
        if (!trees.has(row.tree_id)) throw unknownTreeError(row.id, row.tree_id);
      }
      for (const row of nodeRows) {
        let byId = nodes.get(row.tree_id);
        if (byId === undefined) {
          byId = new Map();
          nodes.set(row.tree_id, byId);
        }
        byId.set(row.id, row);
      }
    },
    listNodes(treeId, filter = {}, page) {
      open("listNodes");
      return pageOf(nodeRows(treeId, filter), page, "listNodes").map(rows.decodeNode);
    },
    countNodes(treeId, filter = {}) {
      open("countNodes");
      return nodeRows(treeId, filter).length;
    },
    getNode(treeId, nodeId) {
      open("getNode");
      const row = nodes.get(treeId)?.get(nodeId);
      return row && rows.decodeNode(row);
    },

    close() {
      if (!closed) table.release();
      closed = true;
    },
  };
}
