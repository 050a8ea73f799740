import { canonicalJson, UserError } from "../core/index.ts";
import { openDatabase, type SqliteStoreOptions } from "./sqlite-open.ts";
import { corruptRow } from "./store-errors.ts";

/** One stored version of one key of a named knowledge table; `data` is the whole entry (JSON). */
export interface KnowledgeRow {
  key: string;
  version: number;
  data: unknown;
}

/**
 * Knowledge tables inside the run store's SQLite database (table `knowledge_entries`, migration 2).
 * The store knows nothing of the entries' shape: the knowledge layer validates what it reads back.
 */
export interface SqliteKnowledgeRows {
  readonly path: string;
  /** Every version of the table, by key then version. */
  load(table: string): KnowledgeRow[];
  /**
   * Adds the versions that are not stored yet, in one transaction. Compare-and-set per key: the stored
   * versions must be exactly the first versions given (same content); otherwise another writer saved a
   * different history and nothing is written (a `UserError` names the key and version).
   */
  append(table: string, rows: ReadonlyArray<KnowledgeRow>): void;
  /** Names of the tables with at least one row, sorted. */
  tables(): string[];
  close(): void;
}

export const KNOWLEDGE_CONFLICT_CODE = "store.knowledge_conflict";

/** Opens (creating and migrating when needed) the knowledge rows of the SQLite store in `dir`. */
export function openSqliteKnowledgeRows(options: SqliteStoreOptions): SqliteKnowledgeRows {
  const { db, path } = openDatabase(options);
  const select = db.prepare(
    "SELECT key, version, data FROM knowledge_entries WHERE table_name = ? ORDER BY key, version",
  );
  const insert = db.prepare(
    "INSERT INTO knowledge_entries (table_name, key, version, data) VALUES (?, ?, ?, ?)",
  );
  const names = db.prepare("SELECT DISTINCT table_name AS name FROM knowledge_entries ORDER BY name");
  type Row = { key: string; version: number; data: string };
  const rowsOf = (table: string) => select.all(table) as Row[];
  const appendTx = db.transaction((table: string, rows: ReadonlyArray<KnowledgeRow>) => {
    const stored = new Map<string, string>();
    for (const r of rowsOf(table)) stored.set(`${r.version}\u0000${r.key}`, r.data);
    const given = new Set<string>();
    for (const row of rows) {
      const id = `${row.version}\u0000${row.key}`;
      given.add(id);
      const text = canonicalJson(row.data);
      const have = stored.get(id);
      if (have === undefined) insert.run(table, row.key, row.version, text);
      else if (have !== text) throw conflict(path, table, row.key, row.version);
    }
    for (const id of stored.keys()) {
      if (!given.has(id)) {
        const [version, key] = id.split("\u0000") as [string, string];
        throw conflict(path, table, key, Number(version));
      }
    }
  });
  return {
    path,
    load(table) {
      return rowsOf(table).map((r) => {
        try {
          return { key: r.key, version: r.version, data: JSON.parse(r.data) as unknown };
        } catch (e) {
          throw corruptRow(`knowledge entry ${table}/${r.key}@${r.version}`, e);
        }
      });
    },
    append(table, rows) {
      appendTx.immediate(table, rows);
    },
    tables() {
      return (names.all() as Array<{ name: string }>).map((r) => r.name);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

function conflict(path: string, table: string, key: string, version: number): UserError {
  return new UserError(
    KNOWLEDGE_CONFLICT_CODE,
    `saving knowledge table "${table}" to ${path} failed: version ${version} of "${key}" was saved by another writer with different content. Reopen the table to read the stored versions, then write again.`,
    { details: { table, key, version } },
  );
}
