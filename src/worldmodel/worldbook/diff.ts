import { canonicalJson } from "../../core/index.ts";
import { fileHash, worldbookFileTexts } from "./files.ts";
import type { Rule, Worldbook } from "./schema.ts";

/** What changed between two worldbook builds (`rehearsal worldbook diff A B`). Pure. */

export interface SetChange {
  added: string[];
  removed: string[];
}

export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface KeyedChange {
  key: string;
  changes: FieldChange[];
}

export interface WorldbookDiff {
  /** True when every file of the two worldbooks has the same content. */
  identical: boolean;
  /** Files whose content differs (or that only one has). */
  files: string[];
  manifest: {
    sources: SetChange;
    families: SetChange;
    changes: FieldChange[];
  };
  rules: SetChange & { changed: KeyedChange[]; unchanged: number };
  outcomeRules: SetChange;
  invariants: {
    constantWithinEpisode: SetChange;
    ranges: SetChange & { changed: KeyedChange[] };
    values: SetChange & { changed: KeyedChange[] };
  };
  schemas: {
    actions: SetChange & { changed: KeyedChange[] };
    fields: SetChange & { changed: KeyedChange[] };
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** Items present in only one of two lists (as sorted string keys). */
export function setChange(before: Iterable<string>, after: Iterable<string>): SetChange {
  const a = new Set(before);
  const b = new Set(after);
  return {
    added: [...b].filter((k) => !a.has(k)).sort(),
    removed: [...a].filter((k) => !b.has(k)).sort(),
  };
}

/** The named fields whose values differ. */
function fieldChanges<T>(a: T, b: T, fields: ReadonlyArray<[string, (x: T) => unknown]>): FieldChange[] {
  return fields
    .map(([field, get]) => ({ field, before: get(a), after: get(b) }))
    .filter((c) => !same(c.before, c.after));
}

/** Items matched by key: the added and removed keys, and per common key the fields that changed. */
function keyedChanges<T>(
  before: ReadonlyArray<T>,
  after: ReadonlyArray<T>,
  key: (x: T) => string,
  fields: ReadonlyArray<[string, (x: T) => unknown]>,
): SetChange & { changed: KeyedChange[]; unchanged: number } {
  const b = new Map(after.map((x) => [key(x), x]));
  const changed: KeyedChange[] = [];
  let unchanged = 0;
  for (const x of before) {
    const other = b.get(key(x));
    if (other === undefined) continue;
    const changes = fieldChanges(x, other, fields);
    if (changes.length > 0) changed.push({ key: key(x), changes });
    else unchanged++;
  }
  changed.sort((p, q) => (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return { ...setChange(before.map(key), after.map(key)), changed, unchanged };
}

/** The fields of a rule the diff reports, outcomes split into their effects, counts and probabilities. */
export const RULE_DIFF_FIELDS: ReadonlyArray<[string, (r: Rule) => unknown]> = [
  ["action", (r) => r.action],
  ["params", (r) => r.params],
  ["scope", (r) => r.scope.tasks],
  ["conditions", (r) => r.conditions],
  ["outcomes.effects", (r) => r.outcomes.map((o) => o.effects)],
  ["outcomes.counts", (r) => r.outcomes.map((o) => o.count)],
  ["outcomes.probabilities", (r) => r.outcomes.map((o) => o.probability)],
  ["stochastic", (r) => r.stochastic],
  ["support", (r) => r.support],
  ["counterexamples", (r) => r.counterexamples],
  ["withheld", (r) => r.withheld],
  ["confidence", (r) => r.confidence],
  ["status", (r) => r.status],
];

/** The files whose texts differ between the two worldbooks (manifest compared without its hashes). */
function changedFiles(a: Worldbook, b: Worldbook): string[] {
  const ta = worldbookFileTexts(a);
  const tb = worldbookFileTexts(b);
  const names = [...new Set([...Object.keys(ta), ...Object.keys(tb)])].sort();
  const files = names.filter((n) => {
    const x = ta[n];
    const y = tb[n];
    return x === undefined || y === undefined || fileHash(x) !== fileHash(y);
  });
  return same(a.manifest, b.manifest) ? files : ["manifest.json", ...files];
}

/** What changed from worldbook `a` (before) to `b` (after). */
export function diffWorldbooks(a: Worldbook, b: Worldbook): WorldbookDiff {
  const files = changedFiles(a, b);
  const rules = keyedChanges(a.rules, b.rules, (r) => r.id, RULE_DIFF_FIELDS);
  const outcomeKey = (o: Worldbook["outcomeRules"][number]) => canonicalJson(o);
  return {
    identical: files.length === 0,
    files,
    manifest: {
      sources: setChange(a.manifest.sources, b.manifest.sources),
      families: setChange(a.manifest.families, b.manifest.families),
      changes: fieldChanges(a.manifest, b.manifest, [
        ["episodes", (m) => m.episodes],
        ["transitions", (m) => m.transitions],
        ["options", (m) => m.options],
        ["split.seed", (m) => m.split?.seed],
        ["split.fractions", (m) => m.split?.fractions],
        ["split.groupBy", (m) => m.split?.groupBy],
        ["split.episodes", (m) => m.split?.episodes],
      ]),
    },
    rules,
    outcomeRules: setChange(a.outcomeRules.map(outcomeKey), b.outcomeRules.map(outcomeKey)),
    invariants: {
      constantWithinEpisode: setChange(
        a.invariants.constantWithinEpisode,
        b.invariants.constantWithinEpisode,
      ),
      ranges: keyedChanges(a.invariants.ranges, b.invariants.ranges, (r) => r.path, [
        ["min", (r) => r.min],
        ["max", (r) => r.max],
      ]),
      values: keyedChanges(a.invariants.values, b.invariants.values, (v) => v.path, [
        ["values", (v) => v.values],
      ]),
    },
    schemas: {
      actions: keyedChanges(a.schemas.actions, b.schemas.actions, (x) => x.type, [
        ["arguments", (x) => x.arguments],
        ["count", (x) => x.count],
      ]),
      fields: keyedChanges(a.schemas.fields, b.schemas.fields, (f) => f.path, [
        ["type", (f) => f.type],
        ["mutable", (f) => f.mutable],
        ["default", (f) => f.default],
      ]),
    },
  };
}

/** The diff as lines for people: one line per change, "identical" when nothing changed. */
export function describeDiff(d: WorldbookDiff): string[] {
  if (d.identical) return ["identical: every file has the same content"];
  const out: string[] = [`files changed: ${d.files.join(", ")}`];
  const sets = (label: string, s: SetChange) => {
    for (const k of s.added) out.push(`+ ${label} ${k}`);
    for (const k of s.removed) out.push(`- ${label} ${k}`);
  };
  const keyed = (label: string, s: { changed: KeyedChange[] }) => {
    for (const c of s.changed)
      for (const f of c.changes)
        out.push(`~ ${label} ${c.key}: ${f.field} ${JSON.stringify(f.before)} → ${JSON.stringify(f.after)}`);
  };
  sets("source", d.manifest.sources);
  sets("family", d.manifest.families);
  for (const f of d.manifest.changes)
    out.push(`~ manifest ${f.field}: ${JSON.stringify(f.before)} → ${JSON.stringify(f.after)}`);
  sets("rule", d.rules);
  keyed("rule", d.rules);
  sets("outcome rule", d.outcomeRules);
  sets("invariant constant", d.invariants.constantWithinEpisode);
  sets("invariant range", d.invariants.ranges);
  keyed("invariant range", d.invariants.ranges);
  sets("invariant values", d.invariants.values);
  keyed("invariant values", d.invariants.values);
  sets("action schema", d.schemas.actions);
  keyed("action schema", d.schemas.actions);
  sets("field schema", d.schemas.fields);
  keyed("field schema", d.schemas.fields);
  return out;
}
