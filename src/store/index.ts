export * from "./contract.ts";
export {
  KNOWLEDGE_CONFLICT_CODE,
  type KnowledgeRow,
  openSqliteKnowledgeRows,
  type SqliteKnowledgeRows,
} from "./knowledge-rows.ts";
export { createMemoryStore } from "./memory-store.ts";
export { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from "./migrations.ts";
export { type OpenStoreOptions, openStore } from "./open-store.ts";
export {
  DATABASE_FILE,
  openSqliteStore,
  type SqliteRunStore,
  type SqliteStoreOptions,
} from "./sqlite-store.ts";
export { isStoreError, StoreError } from "./store-errors.ts";
