import type { WorldbookOptionsInput } from "./schema.ts";

/**
 * Build options a family's state view calls for, for callers to pass to `buildWorldbook` (the engine
 * itself knows no family). FrozenLake: the tile under the agent as a lookup, and `status`/`done` as
 * derived paths, predicted by consequence rules on that tile instead of splitting the slip outcomes.
 */
const DEFAULTS: Readonly<Record<string, WorldbookOptionsInput>> = {
  frozenlake: {
    lookups: [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }],
    derivedPaths: ["done", "status"],
  },
};

/** The default build options for traces of `families` (merged; lookups and derived paths united). */
export function worldbookDefaultsFor(families: ReadonlyArray<string>): WorldbookOptionsInput {
  const lookups = new Map<string, { name: string; template: string }>();
  const derived = new Set<string>();
  for (const family of [...families].sort()) {
    const d = DEFAULTS[family];
    for (const l of d?.lookups ?? []) lookups.set(l.name, l);
    for (const p of d?.derivedPaths ?? []) derived.add(p);
  }
  return {
    ...(lookups.size > 0 ? { lookups: [...lookups.values()] } : {}),
    ...(derived.size > 0 ? { derivedPaths: [...derived].sort() } : {}),
  };
}
