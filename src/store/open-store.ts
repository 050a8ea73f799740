import type { RunStore } from "./contract.ts";
import { createMemoryStore } from "./memory-store.ts";
import { openSqliteStore, type SqliteStoreOptions } from "./sqlite-store.ts";

export type OpenStoreOptions = SqliteStoreOptions | { memory: true };

/** The SQLite store in `dir` (created and migrated when needed), or an in-memory store. */
export function openStore(options: OpenStoreOptions): RunStore {
  if ("memory" in options) return createMemoryStore();
  return openSqliteStore(options);
}
