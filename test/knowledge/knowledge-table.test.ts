import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createJsonFilePersistence,
  createKnowledgeTable,
  type KnowledgeDraft,
  KnowledgeFileError,
  KnowledgeFrozenError,
  knowledgeFilePathFor,
  openKnowledgeTable,
} from "../../src/knowledge/index.ts";

function draft(text: string, episodeId = "ep"): KnowledgeDraft {
  return {
    writer: "test",
    fields: { note: text },
    text,
    provenance: { episodeIds: [episodeId], continuationIds: [] },
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("knowledge table", () => {
  it("versions entries and reads the latest", async () => {
    const table = createKnowledgeTable();
    expect(table.read("s")).toBeUndefined();
    const a = await table.write({ key: "s", epoch: 0, expectedVersion: 0, ...draft("first") });
    expect(a.written && a.entry.version).toBe(1);
    const b = await table.write({ key: "s", epoch: 2, expectedVersion: 1, ...draft("second", "ep2") });
    expect(b.written && b.entry.version).toBe(2);
    expect(table.read("s")).toMatchObject({ key: "s", version: 2, epoch: 2, text: "second", writer: "test" });
    expect(table.history("s").map((e) => e.text)).toEqual(["first", "second"]);
    expect(table.keys()).toEqual(["s"]);
    const stale = await table.write({ key: "s", epoch: 3, expectedVersion: 1, ...draft("stale") });
    expect(stale).toMatchObject({ written: false, reason: "conflict" });
    expect(table.read("s")?.text).toBe("second");
  });

  it("keeps only the first of several concurrent writers to a new state", async () => {
    const table = createKnowledgeTable();
    const results = await Promise.all(
      ["w0", "w1", "w2", "w3", "w4"].map(async (w) => {
        const expectedVersion = table.read("new")?.version ?? 0;
        await Promise.resolve();
        return table.write({ key: "new", epoch: 0, expectedVersion, ...draft(w) });
      }),
    );
    expect(results.filter((r) => r.written)).toHaveLength(1);
    expect(results[0]?.written).toBe(true);
    expect(table.read("new")).toMatchObject({ version: 1, text: "w0" });
    expect(table.history("new")).toHaveLength(1);
  });

  it("refuses writes once frozen; a clone is independent and writable", async () => {
    const table = createKnowledgeTable();
    await table.write({ key: "s", epoch: 0, expectedVersion: 0, ...draft("x") });
    const copy = table.clone();
    table.freeze();
    expect(table.frozen).toBe(true);
    await expect(
      table.write({ key: "s", epoch: 1, expectedVersion: 1, ...draft("y") }),
    ).rejects.toBeInstanceOf(KnowledgeFrozenError);
    expect(table.read("s")?.version).toBe(1);
    const w = await copy.write({ key: "s", epoch: 1, expectedVersion: 1, ...draft("y") });
    expect(w.written).toBe(true);
    expect(table.read("s")?.text).toBe("x");
  });

  it("round-trips through the JSON file next to the store, written atomically", async () => {
    const dir = mkdtempSync(join(tmpdir(), "skl-"));
    dirs.push(dir);
    const path = knowledgeFilePathFor(join(dir, "run.db"));
    expect(path).toBe(join(dir, "run.db.knowledge.json"));
    const table = await openKnowledgeTable(createJsonFilePersistence(path));
    expect(table.size).toBe(0);
    await table.write({ key: "a", epoch: 0, expectedVersion: 0, ...draft("a1") });
    await table.write({ key: "a", epoch: 1, expectedVersion: 1, ...draft("a2") });
    await table.write({ key: "b", epoch: 1, expectedVersion: 0, ...draft("b1") });
    await table.flush();
    expect(readdirSync(dir)).toEqual(["run.db.knowledge.json"]);
    const again = await openKnowledgeTable(createJsonFilePersistence(path));
    expect(again.keys()).toEqual(["a", "b"]);
    expect(again.history("a")).toEqual(table.history("a"));
    expect(again.read("b")).toEqual(table.read("b"));
    writeFileSync(path, "{not json");
    await expect(openKnowledgeTable(createJsonFilePersistence(path))).rejects.toBeInstanceOf(
      KnowledgeFileError,
    );
  });
});
