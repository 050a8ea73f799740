import { STORE_ERROR_CODES } from "./contract.ts";
import { protocolError } from "./store-errors.ts";

export interface TrajectoryState {
  status: string;
  step_count: number;
}

/**
 * The rules both stores enforce on a trajectory's life: steps go to a running trajectory with indices
 * 0, 1, 2, ...; it is finished once; ids are unique. `state` reads the current state (inside the write
 * transaction for SQLite).
 */
export function trajectoryProtocol(state: (id: string) => TrajectoryState | undefined) {
  /** The call named in an error: an append of step `index`, or (without one) a finish. */
  function operationOf(id: string, index: number | undefined): string {
    return index === undefined ? `finishTrajectory(${id})` : `appendStep(${id}, step ${index})`;
  }
  // The operation's name is built only for an error: these checks run for every step.
  function running(id: string, index: number | undefined): TrajectoryState {
    const s = state(id);
    if (s === undefined) {
      const operation = operationOf(id, index);
      throw protocolError(
        STORE_ERROR_CODES.unknownTrajectory,
        `${operation}: no trajectory ${id} in the store; call startTrajectory first.`,
        { trajectoryId: id },
      );
    }
    if (s.status !== "running") {
      const operation = operationOf(id, index);
      throw protocolError(
        STORE_ERROR_CODES.trajectoryFinished,
        `${operation}: trajectory ${id} is already finished (status ${s.status}); start a new trajectory instead of writing to a finished one.`,
        { trajectoryId: id, status: s.status },
      );
    }
    return s;
  }

  return {
    checkAppend(id: string, index: number): void {
      const s = running(id, index);
      if (index !== s.step_count) {
        throw protocolError(
          STORE_ERROR_CODES.stepOutOfOrder,
          `appendStep(${id}, step ${index}): the trajectory has ${s.step_count} steps, so the next step must have index ${s.step_count}; append steps in order without gaps.`,
          { trajectoryId: id, expected: s.step_count, got: index },
        );
      }
    },
    checkFinish(id: string): void {
      running(id, undefined);
    },
    duplicate(id: string): Error {
      return protocolError(
        STORE_ERROR_CODES.duplicateId,
        `startTrajectory(${id}): a trajectory with this id already exists; generate a fresh trajectory id.`,
        { trajectoryId: id },
      );
    },
  };
}
