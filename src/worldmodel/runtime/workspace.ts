import { type Action, type StateRecord, UserError } from "../../core/index.ts";
import { actionKey, diffStates } from "../worldbook/evidence.ts";
import type { Effect, Fact, Worldbook } from "../worldbook/schema.ts";
import type { MemoryEntry, SimulationStep, Simulator } from "./contract.ts";
import { plainCopy } from "./plain-copy.ts";
import { createSimulator } from "./simulator.ts";

/** A workspace's whole state, plain JSON: what `snapshot` gives and `restore` takes. */
export interface WorkspaceSnapshot {
  taskId: string;
  state: StateRecord;
  memory: MemoryEntry[];
  steps: number;
}

/**
 * One episode of the simulation: the worldbook's simulator, the committed state and the episodic memory
 * (the committed steps' action keys and effects; retrieval prefers them). Only an accepted step
 * changes the state; an abstained one leaves it and adds nothing to memory.
 */
export interface Workspace {
  readonly book: Worldbook;
  readonly simulator: Simulator;
  readonly taskId: string;
  /** The committed state (a deep copy). */
  state(): StateRecord;
  memory(): ReadonlyArray<MemoryEntry>;
  /** Committed steps so far (abstained ones included). */
  steps(): number;
  /** Simulates `action` with the random number `draw` in [0, 1) and commits the result. */
  step(action: Action, draw: number): Promise<SimulationStep>;
  snapshot(): WorkspaceSnapshot;
  restore(snapshot: WorkspaceSnapshot): void;
}

const clone = plainCopy;

/** The states of each lazy memory entry, and their diff once worked out. */
const changesOf = new WeakMap<
  object,
  { before: StateRecord; after: StateRecord; diff?: { facts: Fact[]; effects: Effect[] } }
>();

function changes(entry: object): { facts: Fact[]; effects: Effect[] } {
  const c = changesOf.get(entry) as {
    before: StateRecord;
    after: StateRecord;
    diff?: ReturnType<typeof changes>;
  };
  c.diff ??= diffStates(c.before, c.after);
  return c.diff;
}

/** Shared (no closure per step): `facts` and `effects` read through the entry's states. */
const LAZY_CHANGES: PropertyDescriptorMap = {
  facts: {
    enumerable: true,
    get(this: object) {
      return changes(this).facts;
    },
  },
  effects: {
    enumerable: true,
    get(this: object) {
      return changes(this).effects;
    },
  },
};

/**
 * The memory entry of a committed step, its facts and effects worked out (`diffStates`) on first read:
 * the rule path never reads them, retrieval only for entries of its action key. Enumerable getters, so
 * copies and JSON hold the values.
 */
function memoryEntry(
  action: string,
  before: StateRecord,
  after: StateRecord,
  reward: number,
  terminated: boolean,
): MemoryEntry {
  const entry = Object.defineProperties({ action }, LAZY_CHANGES) as MemoryEntry;
  entry.reward = reward;
  entry.terminated = terminated;
  changesOf.set(entry, { before, after });
  return entry;
}

export function createWorkspace(
  book: Worldbook,
  start: { taskId: string; state: StateRecord },
  simulator: Simulator = createSimulator(book),
): Workspace {
  if (simulator.book !== book)
    throw new UserError(
      "worldmodel.workspace_book",
      "createWorkspace(): the simulator was made for another worldbook. Fix: pass createSimulator(book) of the same book",
    );
  let current: WorkspaceSnapshot = { taskId: start.taskId, state: clone(start.state), memory: [], steps: 0 };
  return {
    book,
    simulator,
    get taskId() {
      return current.taskId;
    },
    state: () => clone(current.state),
    memory: () => current.memory,
    steps: () => current.steps,
    async step(action, draw) {
      const before = current.state;
      const result = await simulator.step(
        before,
        action,
        { taskId: current.taskId, memory: current.memory },
        draw,
      );
      current.steps++;
      if (!result.trace.unknown) {
        current.memory.push(
          memoryEntry(actionKey(action), before, result.state, result.reward, result.terminated),
        );
        current.state = result.state;
      }
      return { ...result, state: { ...result.state } };
    },
    snapshot: () => clone(current),
    restore(snapshot) {
      current = clone(snapshot);
    },
  };
}
