import { canonicalJson, type StateRecord, type StateValue } from "../../core/index.ts";
import { type ActionArgs, matchesAction } from "../worldbook/conditions.ts";
import { actionKey } from "../worldbook/evidence.ts";
import type { Effect, Evidence, Fact, Rule, Worldbook } from "../worldbook/schema.ts";
import type { MemoryEntry } from "./contract.ts";
import { createStateTable, type EncodedState, encodedDistance, type StateTable } from "./state-table.ts";

/** A transition retrieval can copy: build evidence or an earlier step of this episode. */
export interface Precedent {
  /** Evidence id, or `memory#<index>` for an episode step. */
  id: string;
  facts: ReadonlyArray<Fact>;
  effects: ReadonlyArray<Effect>;
  reward: number;
  terminated: boolean;
  fromMemory: boolean;
  /** The whole state the transition started from, when known. */
  before?: StateRecord;
}

/** Precomputed lookups over a worldbook: rules by action type, evidence by action key and type. */
export interface WorldbookIndex {
  readonly book: Worldbook;
  rulesOfType(type: string): ReadonlyArray<Rule>;
  evidenceOfKey(key: string): ReadonlyArray<Evidence>;
  evidenceOfType(type: string): ReadonlyArray<{ evidence: Evidence; action: ActionArgs }>;
  /** The state an evidence transition started from, rebuilt from its episode's start and facts. */
  beforeOf(evidenceId: string): StateRecord | undefined;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The before state of every evidence transition: its episode's start with the facts of the earlier
 * steps applied in order (facts list every changed path with its new value). An episode without a start
 * or with a gap in its steps gives no states from the gap on.
 */
function beforeStates(book: Worldbook): Map<string, StateRecord> {
  const starts = new Map(book.starts.map((s) => [s.episodeId, s.state]));
  const episodes = new Map<string, Evidence[]>();
  for (const e of book.evidence) push(episodes, e.provenance.episodeId, e);
  const out = new Map<string, StateRecord>();
  for (const [episode, list] of episodes) {
    let state = starts.get(episode);
    list.sort((a, b) => a.provenance.step - b.provenance.step);
    let expected = list[0]?.provenance.step ?? 0;
    for (const e of list) {
      if (!state || e.provenance.step !== expected) break;
      out.set(e.id, state);
      const next: StateRecord = { ...state };
      for (const f of e.facts) {
        if (f.after === undefined) delete next[f.path];
        else next[f.path] = f.after;
      }
      state = next;
      expected++;
    }
  }
  return out;
}

export function indexWorldbook(book: Worldbook): WorldbookIndex {
  const rules = new Map<string, Rule[]>();
  for (const rule of book.rules) push(rules, String(rule.action.type ?? ""), rule);
  const byKey = new Map<string, Evidence[]>();
  const byType = new Map<string, Array<{ evidence: Evidence; action: ActionArgs }>>();
  for (const evidence of book.evidence) {
    push(byKey, evidence.action, evidence);
    const action = JSON.parse(evidence.action) as ActionArgs;
    push(byType, String(action.type ?? ""), { evidence, action });
  }
  const befores = beforeStates(book);
  return {
    book,
    beforeOf: (id) => befores.get(id),
    rulesOfType: (type) => rules.get(type) ?? [],
    evidenceOfKey: (key) => byKey.get(key) ?? [],
    evidenceOfType: (type) => byType.get(type) ?? [],
  };
}

/**
 * The rules whose action group covers `action`, most specific first: exact-argument rules before
 * lifted ones (fewer `params` first), then higher support, then id.
 */
export function candidateRules(index: WorldbookIndex, action: ActionArgs): Rule[] {
  return index
    .rulesOfType(String(action.type ?? ""))
    .filter((rule) => matchesAction(rule, action))
    .sort(
      (a, b) =>
        a.params.length - b.params.length ||
        b.support - a.support ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
}

function equal(a: StateValue | undefined, b: StateValue | undefined): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b)) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * How far a precedent is from the current state: the paths whose value differs between its before
 * state and the current one (present in one only counts); without a before state, its facts whose
 * before value the current state does not hold.
 */
function distance(p: Precedent, state: StateRecord): number {
  let n = 0;
  const before = p.before;
  if (before) {
    for (const path in state) if (!equal(state[path], before[path])) n++;
    for (const path in before) if (state[path] === undefined) n++;
    return n;
  }
  for (const f of p.facts) if (!equal(state[f.path], f.before)) n++;
  return n;
}

/** `text` with every path segment equal to one of the `from` argument values replaced by the `to` value. */
function liftPath(path: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return path;
  return path
    .split(".")
    .map((part) => renames.get(part) ?? part)
    .join(".");
}

/** The argument values of `from` that differ in `to` (scalars only), as segment renames. */
function renamesOf(from: ActionArgs, to: ActionArgs): Map<string, string> {
  const renames = new Map<string, string>();
  for (const [name, value] of Object.entries(from)) {
    const target = to[name];
    if (name === "type" || value === target) continue;
    if (
      (typeof value === "string" || typeof value === "number") &&
      (typeof target === "string" || typeof target === "number")
    )
      renames.set(String(value), String(target));
  }
  return renames;
}

function renameState(state: StateRecord, renames: ReadonlyMap<string, string>): StateRecord {
  if (renames.size === 0) return state;
  const out: StateRecord = {};
  for (const [path, v] of Object.entries(state)) out[liftPath(path, renames)] = v;
  return out;
}

/**
 * A transition's whole change as effects: its candidate effects, plus a set (or delete) for each changed
 * path they leave out (the derived paths a build keeps out of effect sets, e.g. FrozenLake's status).
 */
function completeEffects(evidence: Evidence): Effect[] {
  const covered = new Set(evidence.effects.map((e) => e.path));
  const rest: Effect[] = evidence.facts
    .filter((f) => !covered.has(f.path))
    .map((f) =>
      f.after === undefined ? { op: "delete", path: f.path } : { op: "set", path: f.path, value: f.after },
    );
  return rest.length === 0 ? evidence.effects : [...evidence.effects, ...rest];
}

function lifted(index: WorldbookIndex, evidence: Evidence, from: ActionArgs, to: ActionArgs): Precedent {
  const renames = renamesOf(from, to);
  const before = index.beforeOf(evidence.id);
  return {
    ...(before ? { before: renameState(before, renames) } : {}),
    id: evidence.id,
    facts: evidence.facts.map((f) => ({ ...f, path: liftPath(f.path, renames) })),
    effects: completeEffects(evidence).map((e) => ({ ...e, path: liftPath(e.path, renames) })),
    reward: evidence.outcome.reward,
    terminated: evidence.outcome.terminated,
    fromMemory: false,
  };
}

interface KeyedPrecedent {
  p: Precedent;
  /** Canonical JSON of its effects (for the effect-set frequency). */
  effectKey: string;
  /** Its before state in the index's state table, when it has one. */
  encoded?: EncodedState;
}

interface RetrievalCache {
  table: StateTable;
  byKey: Map<string, KeyedPrecedent[]>;
  /** Episode memory entries as precedents, made once per entry (entries are never changed once committed). */
  memory: WeakMap<MemoryEntry, KeyedPrecedent>;
}

const caches = new WeakMap<WorldbookIndex, RetrievalCache>();

function cacheOf(index: WorldbookIndex): RetrievalCache {
  let cache = caches.get(index);
  if (!cache) {
    const befores: StateRecord[] = [];
    for (const e of index.book.evidence) {
      const before = index.beforeOf(e.id);
      if (before) befores.push(before);
    }
    cache = { table: createStateTable(befores), byKey: new Map(), memory: new WeakMap() };
    caches.set(index, cache);
  }
  return cache;
}

function keyed(p: Precedent, table: StateTable | undefined): KeyedPrecedent {
  const k: KeyedPrecedent = { p, effectKey: canonicalJson(p.effects) };
  if (table && p.before) k.encoded = table.encode(p.before);
  return k;
}

/** Memory entry `m` at index `i` as a precedent, from the cache when it was made for that index. */
function memoryPrecedent(cache: RetrievalCache, m: MemoryEntry, i: number): KeyedPrecedent {
  const id = `memory#${i}`;
  const known = cache.memory.get(m);
  if (known && known.p.id === id) return known;
  const made = keyed({ id, ...m, fromMemory: true }, cache.table);
  cache.memory.set(m, made);
  return made;
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The build evidence of one action key as precedents (in id order), made once per index and key. */
function precedentsOfKey(index: WorldbookIndex, key: string): KeyedPrecedent[] {
  const cache = cacheOf(index);
  let list = cache.byKey.get(key);
  if (!list) {
    list = [...index.evidenceOfKey(key)].sort(byId).map((e) => keyed(lifted(index, e, {}, {}), cache.table));
    cache.byKey.set(key, list);
  }
  return list;
}

/**
 * The precedents for `action`, nearest first: this episode's steps and the build evidence with the same
 * action key (when there is none: the evidence of the same action type, its argument values in paths
 * renamed to this action's). Nearest = fewest paths where the precedent's before state differs from the
 * current state (see `distance`); ties → the episode's own steps (latest first), then the most frequent
 * effect set, then id order.
 */
export function rankPrecedents(
  index: WorldbookIndex,
  state: StateRecord,
  action: ActionArgs,
  memory: ReadonlyArray<MemoryEntry> = [],
): Precedent[] {
  const key = actionKey(action);
  const cache = cacheOf(index);
  const { table } = cache;
  const pool: KeyedPrecedent[] = [];
  for (const [i, m] of memory.entries()) if (m.action === key) pool.push(memoryPrecedent(cache, m, i));
  const exact = precedentsOfKey(index, key);
  if (exact.length > 0) pool.push(...exact);
  else {
    const type = String(action.type ?? "");
    const borrowed = index
      .evidenceOfType(type)
      .map(({ evidence, action: from }) => lifted(index, evidence, from, action));
    for (const p of borrowed.sort(byId)) pool.push(keyed(p, undefined));
  }
  const frequency = new Map<string, number>();
  for (const { effectKey } of pool) frequency.set(effectKey, (frequency.get(effectKey) ?? 0) + 1);
  const current = table.encode(state);
  const dist = pool.map((k) => (k.encoded ? encodedDistance(current, k.encoded) : distance(k.p, state)));
  const freq = pool.map((k) => frequency.get(k.effectKey) ?? 0);
  const mem = pool.map((k) => (k.p.fromMemory ? 1 : 0));
  // Pool order: the episode's steps in order, then evidence in id order.
  const order = pool.map((_, i) => i);
  order.sort(
    (a, b) =>
      (dist[a] as number) - (dist[b] as number) ||
      (mem[b] as number) - (mem[a] as number) ||
      (freq[b] as number) - (freq[a] as number) ||
      (mem[a] && mem[b] ? b - a : a - b),
  );
  return order.map((i) => (pool[i] as KeyedPrecedent).p);
}
