import { canonicalJson, type StateRecord, type StateScalar } from "../../core/index.ts";

/** A state as one cell per known path: scalars as they are, lists as a marked canonical JSON string. */
export interface EncodedState {
  cells: Array<StateScalar | undefined>;
  /** Paths the table does not know, with their cells. */
  extra: Map<string, StateScalar>;
}

/**
 * Paths interned to columns, so that comparing two states is one pass over two arrays with `===`
 * (retrieval compares the current state with every precedent's before state each step).
 */
export interface StateTable {
  encode(state: StateRecord): EncodedState;
}

const LIST = "\u0001list:";

function cell(value: StateRecord[string]): StateScalar {
  return Array.isArray(value) ? `${LIST}${canonicalJson(value)}` : value;
}

export function createStateTable(states: Iterable<StateRecord>): StateTable {
  const columns = new Map<string, number>();
  for (const state of states)
    for (const path in state) if (!columns.has(path)) columns.set(path, columns.size);
  return {
    encode(state) {
      const cells = new Array<StateScalar | undefined>(columns.size);
      const extra = new Map<string, StateScalar>();
      for (const path in state) {
        const i = columns.get(path);
        const v = cell(state[path] as StateRecord[string]);
        if (i === undefined) extra.set(path, v);
        else cells[i] = v;
      }
      return { cells, extra };
    },
  };
}

/** The number of paths whose value differs between two encoded states (present in one only counts). */
export function encodedDistance(a: EncodedState, b: EncodedState): number {
  let n = 0;
  const x = a.cells;
  const y = b.cells;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) n++;
  for (const [path, v] of a.extra) if (b.extra.get(path) !== v) n++;
  for (const path of b.extra.keys()) if (!a.extra.has(path)) n++;
  return n;
}
