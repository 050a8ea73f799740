import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/index.ts";
import { createSqlitePersistence, openKnowledgeTable, tableEntries } from "../../src/knowledge/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";

const draft = (text: string) => ({
  writer: "statistical",
  fields: { kind: "note", text },
  text,
  provenance: { episodeIds: ["e1"], continuationIds: [] },
});

describe("knowledge table in the store's SQLite database", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-knowledge-db-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes, reopens and reads the same versions, beside the run store's own tables", async () => {
    const persistence = createSqlitePersistence({ dir, name: "t1" });
    const table = await openKnowledgeTable(persistence);
    expect((await table.write({ key: "s0", epoch: 0, expectedVersion: 0, ...draft("a") })).written).toBe(
      true,
    );
    expect((await table.write({ key: "s0", epoch: 1, expectedVersion: 1, ...draft("b") })).written).toBe(
      true,
    );
    expect((await table.write({ key: "s1", epoch: 1, expectedVersion: 0, ...draft("c") })).written).toBe(
      true,
    );
    // Compare-and-set: a writer that read version 1 of s0 loses to the one that wrote version 2.
    const stale = await table.write({ key: "s0", epoch: 1, expectedVersion: 1, ...draft("late") });
    expect(stale.written).toBe(false);
    await table.flush();

    const reopened = await openKnowledgeTable(createSqlitePersistence({ dir, name: "t1" }));
    expect(tableEntries(reopened)).toEqual(tableEntries(table));
    expect(reopened.read("s0")?.text).toBe("b");
    expect((await openKnowledgeTable(createSqlitePersistence({ dir, name: "other" }))).size).toBe(0);
    // The database is the run store's: it still opens as one.
    const store = openSqliteStore({ dir });
    expect(store.listRuns()).toEqual([]);
    store.close();
  });

  it("refuses to save over versions another writer saved differently (nothing written)", async () => {
    const a = await openKnowledgeTable(createSqlitePersistence({ dir, name: "race" }));
    const b = await openKnowledgeTable(createSqlitePersistence({ dir, name: "race" }));
    await a.write({ key: "s", epoch: 0, expectedVersion: 0, ...draft("from a") });
    await a.flush();
    await b.write({ key: "s", epoch: 0, expectedVersion: 0, ...draft("from b") });
    await b.write({ key: "t", epoch: 0, expectedVersion: 0, ...draft("also b") });
    await expect(b.flush()).rejects.toThrow(UserError);
    const stored = await openKnowledgeTable(createSqlitePersistence({ dir, name: "race" }));
    expect(stored.keys()).toEqual(["s"]);
    expect(stored.read("s")?.text).toBe("from a");
    // A flush that only adds versions on top of what is stored goes through.
    await stored.write({ key: "s", epoch: 1, expectedVersion: 1, ...draft("a again") });
    await stored.flush();
    expect(
      (await openKnowledgeTable(createSqlitePersistence({ dir, name: "race" }))).read("s")?.version,
    ).toBe(2);
  });
});
