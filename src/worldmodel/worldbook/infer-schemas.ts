import { canonicalJson, type StateFieldSpec } from "../../core/index.ts";
import { type FieldStatsCollector, sortedValues } from "./invariants.ts";
import type { ActionSpec, Schemas } from "./schema.ts";

type ArgumentType = ActionSpec["arguments"][number]["type"];

function argumentType(value: unknown): ArgumentType {
  if (Array.isArray(value)) return "list";
  if (value === null) return "null";
  const t = typeof value;
  return t === "string" || t === "number" || t === "boolean" ? t : "object";
}

/** Collects the actions seen: per type, each argument's type and distinct values. */
export class ActionCollector {
  private readonly byType = new Map<string, { count: number; args: Map<string, Map<string, unknown>> }>();

  add(action: Record<string, unknown>): void {
    const type = String(action.type);
    let entry = this.byType.get(type);
    if (!entry) {
      entry = { count: 0, args: new Map() };
      this.byType.set(type, entry);
    }
    entry.count++;
    for (const [name, value] of Object.entries(action)) {
      if (name === "type") continue;
      const values = entry.args.get(name) ?? new Map<string, unknown>();
      values.set(canonicalJson(value), value);
      entry.args.set(name, values);
    }
  }

  specs(): ActionSpec[] {
    return [...this.byType.keys()].sort().map((type) => {
      const entry = this.byType.get(type) as { count: number; args: Map<string, Map<string, unknown>> };
      const args = [...entry.args.keys()].sort().map((name) => {
        const values = [...(entry.args.get(name) as Map<string, unknown>).entries()]
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
          .map(([, v]) => v);
        return { name, type: argumentType(values[0]), values };
      });
      return { type, arguments: args, count: entry.count };
    });
  }
}

/** One field spec per pattern: its type, whether a transition changed it, and the default when episodes agree. */
export function inferFieldSpecs(collector: FieldStatsCollector): StateFieldSpec[] {
  return [...collector.stats.keys()].sort().map((path) => {
    const s = collector.stats.get(path);
    const types = s ? [...s.types].sort() : [];
    const initial = s ? sortedValues(s.initial) : [];
    const spec: StateFieldSpec = {
      path,
      type: types.length === 1 ? (types[0] ?? "string") : "string",
      mutable: s?.changed ?? false,
    };
    if (initial.length === 1 && initial[0] !== undefined) spec.default = initial[0];
    return spec;
  });
}

export function inferSchemas(actions: ActionCollector, fields: FieldStatsCollector): Schemas {
  return { actions: actions.specs(), fields: inferFieldSpecs(fields) };
}
