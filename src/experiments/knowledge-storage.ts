import { join } from "node:path";
import {
  createJsonFilePersistence,
  createSqlitePersistence,
  type KnowledgeTable,
  knowledgeFilePathFor,
  tableEntries,
} from "../knowledge/index.ts";

/** Where an experiment keeps its final knowledge tables: JSON files, or the store's SQLite database. */
export type KnowledgeStorage = "json" | "sqlite";

/** Where the knowledge tables of a run went: per table name, its file (json) or its table (sqlite). */
export interface SavedKnowledge {
  storage: KnowledgeStorage;
  /** The store's database, for `sqlite`. */
  database?: string;
  tables: Record<string, string>;
}

/**
 * Saves `tables` (name → table) of run `runId` as `where.knowledge` says: `sqlite` into the database of
 * the store `where.store`
 * as `<runId>/<name>`; `json` as `<store>/<jsonPrefix>-<name>.knowledge.json`, or nowhere without a
 * prefix (the experiment already wrote its own files).
 */
export async function saveKnowledge(
  where: { store: string; knowledge: string },
  runId: string,
  tables: ReadonlyArray<readonly [string, KnowledgeTable]>,
  jsonPrefix?: string,
): Promise<SavedKnowledge> {
  const saved: SavedKnowledge = { storage: where.knowledge === "sqlite" ? "sqlite" : "json", tables: {} };
  if (saved.storage === "sqlite") saved.database = join(where.store, "rehearsal.db");
  for (const [name, table] of tables) {
    if (saved.storage === "sqlite") {
      saved.tables[name] = `${runId}/${name}`;
      await createSqlitePersistence({ dir: where.store, name: saved.tables[name] }).save(tableEntries(table));
    } else if (jsonPrefix !== undefined) {
      saved.tables[name] = knowledgeFilePathFor(join(where.store, `${jsonPrefix}-${name}`));
      await createJsonFilePersistence(saved.tables[name]).save(tableEntries(table));
    }
  }
  return saved;
}
