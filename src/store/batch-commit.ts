import type Database from "better-sqlite3";
import type { PendingArtefact } from "./encode.ts";
import type { MiddleRefs, ObservationRefs } from "./observation-refs.ts";
import type { StepRow } from "./rows.ts";
import { insert } from "./sqlite-open.ts";
import { STEP_COLUMNS, STEP_INSERT_SIZES, type Statements, type StepColumn } from "./statements.ts";
import type { StepBatch } from "./step-batch.ts";
import { middleText } from "./step-text.ts";
import { isProtocolError, unknownRunError } from "./store-errors.ts";
import type { StoreHealth } from "./store-health.ts";
import type { trajectoryProtocol } from "./trajectory-protocol.ts";

/** The longest delay a Node timer takes (longer ones fire at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** The operation named in the error of a commit that the batch timer ran. */
const TIMER_COMMIT = "committing the waiting batch (batchMs timer)";

/**
 * Commits the SQLite store's batch (see `StepBatch`) in one transaction, and, through an unref'd timer,
 * when it has waited `batchMs` without a further call. A timer commit that fails leaves the batch as it
 * was; the next store call (or `close`) commits it again and throws that failure to its caller (the
 * failure of the new attempt when it fails again), so a failure is never lost.
 */
export interface BatchCommitter {
  /** Commits what waits (nothing when empty); when it fails the batch stays and the error is thrown. */
  commit(operation: string): void;
  /** After a call that may have left entries waiting: makes sure a timer will commit them. */
  arm(): void;
  /** Before every store call: after a failed timer commit, commits again and throws that failure. */
  recover(operation: string): void;
  /** At close: no timer fires any more. */
  stop(): void;
}

export interface BatchCommitDeps {
  db: Database.Database;
  st: Statements;
  batch: StepBatch;
  batchMs: number;
  health: StoreHealth;
  observations: ObservationRefs;
  middles: MiddleRefs;
  /** The rules on the committed rows (read inside the transaction). */
  protocol: ReturnType<typeof trajectoryProtocol>;
  insertArtefactRows(pending: ReadonlyArray<PendingArtefact>): void;
}

export function createBatchCommitter(deps: BatchCommitDeps): BatchCommitter {
  const { st, batch, health, observations, middles, protocol } = deps;

  /**
   * Runs `check` for a trajectory's entries. When the committed rows refuse them (a protocol error:
   * another connection finished, took or deleted what they follow) they can never commit and are
   * dropped; any other failure (disk full, I/O) leaves them waiting for the next commit.
   */
  function orDrop(trajectoryId: string, check: () => void): void {
    try {
      check();
    } catch (error) {
      if (isProtocolError(error)) batch.drop(trajectoryId);
      throw error;
    }
  }

  /** One argument array per statement size, filled again for every execution. */
  const stepArgs = STEP_INSERT_SIZES.map((size) => new Array<StepColumn>(size * STEP_COLUMNS));
  /**
   * Inserts the waiting steps in append order, in groups of the statement sizes, checking, where the
   * waiting steps of a trajectory started before this batch begin, that its committed rows still take
   * them (the steps of one trajectory in a batch follow on from each other: they were checked when
   * appended).
   */
  function insertSteps(): void {
    const rows = batch.rows();
    let current: string | undefined;
    let checked: Set<string> | undefined;
    let i = 0;
    STEP_INSERT_SIZES.forEach((size, s) => {
      const statement = st.insertSteps[s] as (typeof st.insertSteps)[number];
      const args = stepArgs[s] as StepColumn[];
      for (; rows.length - i >= size; i += size) {
        for (let k = 0, a = 0; k < size; k++) {
          const row = rows[i + k] as StepRow;
          const id = row.trajectory_id;
          if (id !== current) {
            current = id;
            if (batch.pendingStart(id) === undefined && !checked?.has(id)) {
              checked ??= new Set();
              checked.add(id);
              orDrop(id, () => protocol.checkAppend(id, row.idx));
            }
          }
          args[a++] = id;
          args[a++] = row.idx;
          args[a++] = row.action_type;
          args[a++] = row.reward;
          args[a++] = row.terminated;
          args[a++] = row.truncated;
          args[a++] = row.observation === null ? null : observations.idOf(row.observation);
          // A middle seen for the first time stays in the row, at the front of its data.
          const middleId = row.middle === null ? undefined : middles.idOf(row.middle);
          args[a++] = middleId ?? null;
          args[a++] =
            middleId === undefined && row.middle !== null ? middleText(row.middle) + row.data : row.data;
        }
        statement.run(...args);
      }
    });
  }

  /**
   * Inserts the waiting starts (a start whose end waits too goes in as one row with the final status),
   * then the waiting steps, then the other waiting ends, checking each trajectory's committed rows
   * where its steps begin and before its end (a trajectory started in this batch was checked when it
   * was started, appended and finished; another connection may have finished or deleted one since).
   */
  function insertBatch(): void {
    deps.insertArtefactRows(batch.artefacts());
    for (const start of batch.starts()) {
      const end = batch.pendingEnd(start.id);
      const row = end === undefined ? start : { ...start, ...end };
      orDrop(row.id, () =>
        insert(() => st.insertTrajectory.run(row), {
          foreignKey: () => unknownRunError(`startTrajectory(${row.id})`, row.run_id),
          primaryKey: () => protocol.duplicate(row.id),
        }),
      );
    }
    insertSteps();
    for (const end of batch.ends()) {
      if (batch.pendingStart(end.id) !== undefined) continue; // went in with its start
      orDrop(end.id, () => protocol.checkFinish(end.id));
      st.finishTrajectory.run(end);
    }
  }
  const insertBatchTx = deps.db.transaction(insertBatch);

  let timer: NodeJS.Timeout | undefined;
  let timerFailure: { error: unknown } | undefined;

  function commit(operation: string): void {
    if (batch.size === 0) return;
    health.beforeWrite(operation);
    health.guard(operation, () => {
      try {
        insertBatchTx.immediate();
      } catch (error) {
        // The transaction did not commit: the observations and middles it stored are gone.
        observations.forget();
        middles.forget();
        throw error;
      }
    });
    batch.clear();
  }

  function fire(): void {
    timer = undefined;
    if (batch.size === 0) return;
    const age = batch.age();
    if (age < deps.batchMs) {
      arm(deps.batchMs - age);
      return;
    }
    try {
      commit(TIMER_COMMIT);
    } catch (error) {
      timerFailure = { error }; // thrown by the next call; no timer until then
    }
  }
  function arm(delay = deps.batchMs - batch.age()): void {
    if (timer !== undefined || timerFailure !== undefined || batch.size === 0) return;
    timer = setTimeout(fire, Math.min(MAX_TIMER_MS, Math.max(0, delay)));
    timer.unref();
  }

  return {
    commit,
    arm: () => arm(),
    recover(operation) {
      if (timerFailure === undefined) return;
      const failure = timerFailure.error;
      timerFailure = undefined;
      commit(operation);
      throw failure;
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
