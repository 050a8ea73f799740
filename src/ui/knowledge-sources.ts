import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createJsonFilePersistence, type KnowledgeEntry, KnowledgeEntrySchema } from "../knowledge/index.ts";
import { openSqliteKnowledgeRows } from "../store/knowledge-rows.ts";
import type { UiContext } from "./ui-context.ts";

/** A knowledge table the dashboard can show: in the store's database, or a `.knowledge.json` file. */
export type KnowledgeSource = { kind: "sqlite"; name: string } | { kind: "json"; name: string; path: string };

/** An SKL report (`skl frozenlake|chess` JSON output): per method, one row per iteration. */
export interface SklReport {
  path: string;
  kind: string;
  methods: Array<{ method: string; iterations: Array<Record<string, unknown>> }>;
}

function filesIn(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(suffix))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** The knowledge tables: those in the store's database, then `*.knowledge.json` in the store and SKL dirs. */
export function knowledgeSources(ctx: UiContext): KnowledgeSource[] {
  const out: KnowledgeSource[] = [];
  try {
    const rows = openSqliteKnowledgeRows({ dir: ctx.storeDir, readOnly: true });
    try {
      for (const name of rows.tables()) out.push({ kind: "sqlite", name });
    } finally {
      rows.close();
    }
  } catch {
    // a memory store or a database without knowledge tables: none from it
  }
  for (const dir of [ctx.storeDir, ...ctx.sklDirs])
    for (const path of filesIn(dir, ".knowledge.json"))
      out.push({ kind: "json", name: path.slice(dir.length + 1), path });
  return out;
}

/** Every stored version of a table's entries, validated. */
export async function loadKnowledge(ctx: UiContext, source: KnowledgeSource): Promise<KnowledgeEntry[]> {
  if (source.kind === "json") return createJsonFilePersistence(source.path).load();
  const rows = openSqliteKnowledgeRows({ dir: ctx.storeDir, readOnly: true });
  try {
    return rows.load(source.name).map((r) => KnowledgeEntrySchema.parse(r.data));
  } finally {
    rows.close();
  }
}

/** The SKL reports (JSON files whose `kind` starts with `skl-`) in the SKL dirs and the store dir. */
export function sklReports(ctx: UiContext): SklReport[] {
  const out: SklReport[] = [];
  for (const dir of [...ctx.sklDirs, ctx.storeDir]) {
    for (const path of filesIn(dir, ".json")) {
      if (path.endsWith(".knowledge.json")) continue;
      try {
        const json = JSON.parse(readFileSync(path, "utf8")) as Partial<SklReport>;
        if (typeof json.kind === "string" && json.kind.startsWith("skl-") && Array.isArray(json.methods))
          out.push({
            path,
            kind: json.kind,
            methods: json.methods.filter((m) => Array.isArray(m?.iterations)),
          });
      } catch {
        // not a report
      }
    }
  }
  return out;
}
