import { expect } from "vitest";
import {
  type Image,
  isRehearsalError,
  type Observation,
  type StepRecord,
  sha256Hex,
  type Task,
} from "../../core/index.ts";
import type { NewRun, NewTrajectory, TreeNodeRecord, TreeRecord } from "../../store/index.ts";

/** Builders and checks shared by the store conformance sections. */
export function expectStoreError(fn: () => unknown, code: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected an error with code ${code}`).toBeDefined();
  expect(isRehearsalError(thrown), `expected a RehearsalError, got ${String(thrown)}`).toBe(true);
  expect((thrown as { code: string }).code).toBe(code);
  expect((thrown as Error).message.length).toBeGreaterThan(20);
}

export function newRun(id: string, overrides: Partial<NewRun> = {}): NewRun {
  return {
    id,
    kind: "run",
    seed: "s1",
    config: { policy: "random" },
    codeVersion: "0.1.0",
    createdAtMs: 1000,
    ...overrides,
  };
}

export function task(id: string): Task {
  return {
    id,
    instruction: `do ${id}`,
    family: "frozenlake",
    seed: 0,
    split: "train",
    verifier: { kind: "goal" },
    tags: ["a"],
  };
}

export function newTrajectory(id: string, overrides: Partial<NewTrajectory> = {}): NewTrajectory {
  return {
    id,
    runId: "r1",
    taskId: "task-1",
    episodeIndex: 0,
    seed: 7,
    policy: "random",
    startedAtMs: 1000,
    ...overrides,
  };
}

export function step(index: number, overrides: Partial<StepRecord> = {}): StepRecord {
  const observation: Observation = {
    text: `state ${index}`,
    stateKey: `s${index}`,
    legalActions: [
      { type: "move", direction: "left" },
      { type: "move", direction: "right" },
    ],
    data: { row: index, col: 0 },
  };
  return {
    index,
    observation,
    action: { type: "move", direction: "right" },
    raw: "right",
    reward: 0,
    terminated: false,
    truncated: false,
    info: { slipped: index % 2 === 0 },
    timeMs: 3,
    ...overrides,
  };
}

export function image(bytes: number[]): Image & { bytes: Uint8Array } {
  const data = new Uint8Array(bytes);
  return { mime: "image/png", sha256: sha256Hex(data), width: 4, height: 3, bytes: data };
}

export function tree(id: string): TreeRecord {
  return { id, runId: "r1", taskId: "task-1", seed: 3, status: "running", data: { budget: 10 } };
}

export function node(
  treeId: string,
  id: string,
  parentId: string | null,
  depth: number,
  status: TreeNodeRecord["status"] = "alive",
): TreeNodeRecord {
  return { id, treeId, parentId, depth, status, data: { score: depth } };
}
