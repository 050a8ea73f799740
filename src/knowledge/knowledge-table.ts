import { KnowledgeFrozenError } from "./errors.ts";
import { type KnowledgeDraft, type KnowledgeEntry, KnowledgeEntrySchema } from "./knowledge-entry.ts";
import { createMemoryPersistence, type KnowledgePersistence } from "./persistence.ts";

export interface KnowledgeWrite extends KnowledgeDraft {
  key: string;
  epoch: number;
  /**
   * Compare-and-set: the version the writer read (0 when the key had no entry). The write is kept only
   * if the key is still at that version, so when several writers race to create a new state's entry,
   * only the first is kept.
   */
  expectedVersion: number;
}

export type WriteResult =
  | { written: true; entry: KnowledgeEntry }
  | { written: false; reason: "conflict"; current: KnowledgeEntry | undefined };

/** A state-keyed table of versioned knowledge entries. */
export interface KnowledgeTable {
  /** The latest version for `key`, if any. */
  read(key: string): KnowledgeEntry | undefined;
  /** Every version of `key`, oldest first. */
  history(key: string): ReadonlyArray<KnowledgeEntry>;
  /** Keys with at least one entry, sorted. */
  keys(): string[];
  /** Number of keys. */
  readonly size: number;
  readonly frozen: boolean;
  /** Compare-and-set write (see `KnowledgeWrite.expectedVersion`); throws `KnowledgeFrozenError` when frozen. */
  write(write: KnowledgeWrite): Promise<WriteResult>;
  /** Makes the table read-only for good (held-out evaluation). */
  freeze(): this;
  /** An independent copy (not frozen) with the same versions. */
  clone(): KnowledgeTable;
  /** Saves every version through the persistence. */
  flush(): Promise<void>;
}

class VersionedTable implements KnowledgeTable {
  private readonly versions = new Map<string, KnowledgeEntry[]>();
  private isFrozen = false;

  constructor(
    private readonly persistence: KnowledgePersistence,
    entries: ReadonlyArray<KnowledgeEntry>,
  ) {
    for (const entry of entries) {
      const list = this.versions.get(entry.key) ?? [];
      list.push(structuredClone(entry));
      list.sort((a, b) => a.version - b.version);
      this.versions.set(entry.key, list);
    }
  }

  get size(): number {
    return this.versions.size;
  }

  get frozen(): boolean {
    return this.isFrozen;
  }

  read(key: string): KnowledgeEntry | undefined {
    return this.versions.get(key)?.at(-1);
  }

  history(key: string): ReadonlyArray<KnowledgeEntry> {
    return this.versions.get(key) ?? [];
  }

  keys(): string[] {
    return [...this.versions.keys()].sort();
  }

  async write(write: KnowledgeWrite): Promise<WriteResult> {
    // The compare-and-set runs synchronously, before any await: concurrent writers are ordered by call.
    if (this.isFrozen) throw new KnowledgeFrozenError(write.key);
    const current = this.read(write.key);
    const currentVersion = current?.version ?? 0;
    if (currentVersion !== write.expectedVersion) return { written: false, reason: "conflict", current };
    const entry = KnowledgeEntrySchema.parse({
      key: write.key,
      epoch: write.epoch,
      version: currentVersion + 1,
      writer: write.writer,
      fields: write.fields,
      text: write.text,
      provenance: write.provenance,
    });
    const list = this.versions.get(write.key) ?? [];
    list.push(entry);
    this.versions.set(write.key, list);
    return { written: true, entry };
  }

  freeze(): this {
    this.isFrozen = true;
    return this;
  }

  clone(): KnowledgeTable {
    return new VersionedTable(createMemoryPersistence(), this.allEntries());
  }

  async flush(): Promise<void> {
    await this.persistence.save(this.allEntries());
  }

  private allEntries(): KnowledgeEntry[] {
    const out: KnowledgeEntry[] = [];
    for (const key of this.keys()) out.push(...(this.versions.get(key) ?? []));
    return out;
  }
}

/** A table over `persistence` (memory by default), loaded with what it holds. */
export async function openKnowledgeTable(
  persistence: KnowledgePersistence = createMemoryPersistence(),
): Promise<KnowledgeTable> {
  return new VersionedTable(persistence, await persistence.load());
}

/** An empty in-memory table (synchronous, for loops and tests). */
export function createKnowledgeTable(): KnowledgeTable {
  return new VersionedTable(createMemoryPersistence(), []);
}

/** Every version of every key (keys sorted, versions oldest first): what persistence saves. */
export function tableEntries(table: KnowledgeTable): KnowledgeEntry[] {
  return table.keys().flatMap((k) => [...table.history(k)]);
}
