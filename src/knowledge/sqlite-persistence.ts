import { openSqliteKnowledgeRows } from "../store/knowledge-rows.ts";
import { describeIssues, KnowledgeFileError } from "./errors.ts";
import { KnowledgeEntrySchema } from "./knowledge-entry.ts";
import type { KnowledgePersistence } from "./persistence.ts";

/**
 * A knowledge table kept in the run store's SQLite database (`<dir>/rehearsal.db`, table
 * `knowledge_entries`) under `name`. Each call opens its own connection and closes it, so the table never
 * holds the store's database open. `save` is a compare-and-set across processes: it adds the versions not
 * stored yet and refuses (nothing written) when the stored history of a key differs from the one given.
 */
export function createSqlitePersistence(options: { dir: string; name: string }): KnowledgePersistence {
  const withRows = <T>(fn: (rows: ReturnType<typeof openSqliteKnowledgeRows>) => T): T => {
    const rows = openSqliteKnowledgeRows({ dir: options.dir });
    try {
      return fn(rows);
    } finally {
      rows.close();
    }
  };
  const where = `${options.dir} (knowledge table "${options.name}")`;
  return {
    kind: "sqlite",
    async load() {
      return withRows((rows) =>
        rows.load(options.name).map((row) => {
          const parsed = KnowledgeEntrySchema.safeParse(row.data);
          if (!parsed.success)
            throw new KnowledgeFileError(where, describeIssues(parsed.error.issues), parsed.error);
          return parsed.data;
        }),
      );
    },
    async save(entries) {
      withRows((rows) =>
        rows.append(
          options.name,
          entries.map((e) => ({ key: e.key, version: e.version, data: e })),
        ),
      );
    },
  };
}
