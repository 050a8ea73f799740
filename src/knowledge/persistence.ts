import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { z } from "zod";
import { parseJsonText } from "../core/read-json-file.ts";
import { describeIssues, KnowledgeFileError } from "./errors.ts";
import { type KnowledgeEntry, KnowledgeEntrySchema } from "./knowledge-entry.ts";

/**
 * Where a knowledge table keeps its versions between processes. The table loads everything once and
 * saves everything on `flush()`; implementations only move whole lists of entries.
 */
export interface KnowledgePersistence {
  readonly kind: "memory" | "json-file" | "sqlite";
  /** Every stored version, in write order. */
  load(): Promise<KnowledgeEntry[]>;
  /** Replaces what is stored with these versions. */
  save(entries: ReadonlyArray<KnowledgeEntry>): Promise<void>;
}

/** Keeps the entries in this process only (tests, throw-away experiments). */
export function createMemoryPersistence(initial: ReadonlyArray<KnowledgeEntry> = []): KnowledgePersistence {
  let stored = structuredClone([...initial]);
  return {
    kind: "memory",
    async load() {
      return structuredClone(stored);
    },
    async save(entries) {
      stored = structuredClone([...entries]);
    },
  };
}

export const KNOWLEDGE_FILE_FORMAT = "rehearsal-knowledge";
export const KNOWLEDGE_FILE_VERSION = 1;

const KnowledgeFileSchema = z.object({
  format: z.literal(KNOWLEDGE_FILE_FORMAT),
  version: z.literal(KNOWLEDGE_FILE_VERSION),
  entries: z.array(KnowledgeEntrySchema),
});

/** The knowledge file that sits next to a run store's database: `<store>.knowledge.json`. */
export function knowledgeFilePathFor(storePath: string): string {
  return `${storePath}.knowledge.json`;
}

/**
 * The table as one JSON file (`{format, version, entries}`), written atomically: the new content goes to
 * `<path>.tmp-<pid>` and is renamed over the file, so a crash leaves either the old or the new table.
 * A missing file loads as an empty table. `createSqlitePersistence` keeps a table in the store's
 * database instead.
 */
export function createJsonFilePersistence(path: string): KnowledgePersistence {
  return {
    kind: "json-file",
    async load() {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw new KnowledgeFileError(path, (e as Error).message, e);
      }
      return parseJsonText(text, KnowledgeFileSchema, {
        syntax: (e) => new KnowledgeFileError(path, "not JSON", e),
        invalid: (error) => new KnowledgeFileError(path, describeIssues(error.issues), error),
      }).entries;
    },
    async save(entries) {
      const tmp = `${path}.tmp-${process.pid}`;
      const body = { format: KNOWLEDGE_FILE_FORMAT, version: KNOWLEDGE_FILE_VERSION, entries };
      try {
        await writeFile(tmp, `${JSON.stringify(body)}\n`, "utf8");
        await rename(tmp, path);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },
  };
}
