import { canonicalJson, type StateRecord } from "../../core/index.ts";
import type { Effect } from "./schema.ts";

/** The arguments a rule can be lifted over: the action's scalar arguments other than `type`, by name. */
export function liftableArgs(action: Readonly<Record<string, unknown>>): Array<[string, string]> {
  return Object.keys(action)
    .filter((k) => k !== "type")
    .sort()
    .flatMap((k): Array<[string, string]> => {
      const v = action[k];
      return typeof v === "string" || typeof v === "number" ? [[k, String(v)]] : [];
    });
}

/** `path` with each segment equal to an argument's value replaced by `{arg}` (first argument by name). */
export function liftPath(path: string, args: ReadonlyArray<[string, string]>, used: Set<string>): string {
  return path
    .split(".")
    .map((part) => {
      const arg = args.find(([, v]) => v === part);
      if (!arg) return part;
      used.add(arg[0]);
      return `{${arg[0]}}`;
    })
    .join(".");
}

/** A before-state as lifted conditions read it: every path lifted over the action's arguments. */
export function liftedView(state: StateRecord, action: Readonly<Record<string, unknown>>): StateRecord {
  const args = liftableArgs(action);
  const out: StateRecord = {};
  for (const [path, value] of Object.entries(state)) out[liftPath(path, args, new Set())] = value;
  return out;
}

/** The forms an effect can take in a lifted rule: the constant one first, then `from` references. */
function forms(
  effect: Effect,
  all: ReadonlyArray<Effect>,
  before: StateRecord,
  action: Readonly<Record<string, unknown>>,
): Array<{ effect: Effect; used: string[] }> {
  const args = liftableArgs(action);
  const used = new Set<string>();
  const path = liftPath(effect.path, args, used);
  const constant = { effect: { ...effect, path }, used: [...used] };
  if (effect.op !== "set" || typeof effect.value !== "string") return [constant];
  const out = [constant];
  const { value: _value, ...rest } = effect;
  for (const [name] of args) {
    if (action[name] === effect.value) {
      out.push({ effect: { ...rest, path, from: `action.${name}` }, used: [...used, name] });
    }
  }
  // The value moved here from another changed path (a chess piece from its square).
  for (const other of all) {
    if (other.path === effect.path || before[other.path] !== effect.value) continue;
    const u = new Set(used);
    const source = liftPath(other.path, args, u);
    out.push({ effect: { ...rest, path, from: `state.${source}` }, used: [...u] });
  }
  return out;
}

/**
 * Lifts one action type's transitions over their arguments. Each effect takes the form (constant, or
 * `from` an argument or a before-state path) that the most transitions share, so that one lifted
 * outcome explains them all; ties keep the earlier form. Returns per transition its lifted effects and
 * the arguments they use.
 */
export function liftEffects(
  items: ReadonlyArray<{
    effects: ReadonlyArray<Effect>;
    before: StateRecord;
    action: Record<string, unknown>;
  }>,
): Array<{ effects: Effect[]; used: Set<string> }> {
  const options = items.map((item) =>
    item.effects.map((e) => forms(e, item.effects, item.before, item.action)),
  );
  const counts = new Map<string, number>();
  for (const perItem of options) {
    const seen = new Set<string>();
    for (const perEffect of perItem) for (const f of perEffect) seen.add(canonicalJson(f.effect));
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return options.map((perItem) => {
    const used = new Set<string>();
    const effects = perItem.map((perEffect) => {
      let best = perEffect[0] as { effect: Effect; used: string[] };
      for (const f of perEffect) {
        if ((counts.get(canonicalJson(f.effect)) ?? 0) > (counts.get(canonicalJson(best.effect)) ?? 0))
          best = f;
      }
      for (const u of best.used) used.add(u);
      return best.effect;
    });
    return { effects, used };
  });
}
