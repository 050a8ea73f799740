import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError, RehearsalError, sha256Hex } from "../../src/core/index.ts";
import {
  exportSft,
  readVerifiedArtefact,
  SFT_EXPORT_DEFAULTS,
  TrlRecordSchema,
} from "../../src/export/index.ts";
import { openSqliteStore, type SqliteRunStore } from "../../src/store/index.ts";
import { filesBelow, PNG, PNG_SHA, screenshotSearch } from "./helpers.ts";

let dir: string;
let store: SqliteRunStore;
const runId = "search_shots";
const options = (out: string) => ({ ...SFT_EXPORT_DEFAULTS, runId, out, observation: "both" as const });

/** The store's file for the screenshot artefact (content-addressed: artefacts/<ab>/<sha>.png). */
function artefactFile(): string {
  const sub = join(dir, "store", "artefacts", PNG_SHA.slice(0, 2));
  const name = readdirSync(sub).find((f) => f.startsWith(PNG_SHA));
  if (!name) throw new Error("the screenshot artefact was not stored");
  return join(sub, name);
}

function failure(run: () => unknown): RehearsalError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(RehearsalError);
    return e as RehearsalError;
  }
  throw new Error("expected the export to fail");
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-sft-shots-"));
  store = openSqliteStore({ dir: join(dir, "store") });
  await screenshotSearch(store, runId);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SFT export of screenshots", () => {
  it("copies each screenshot once, verified, and references it from the records", () => {
    const outDir = mkdtempSync(join(dir, "ok-"));
    const report = exportSft(store, options(join(outDir, "sft.jsonl")));
    expect(report.records).toBeGreaterThan(0);
    expect(report.images).toBe(1);
    expect(filesBelow(outDir)).toEqual([`sft.jsonl`, `sft.jsonl.images/${PNG_SHA}.png`]);
    expect(sha256Hex(readFileSync(join(outDir, "sft.jsonl.images", `${PNG_SHA}.png`)))).toBe(PNG_SHA);
    const first = TrlRecordSchema.parse(
      JSON.parse(readFileSync(join(outDir, "sft.jsonl"), "utf8").split("\n")[0]!),
    );
    expect(first.images).toEqual([`sft.jsonl.images/${PNG_SHA}.png`]);
  });

  it("replaces a damaged image left by an earlier export", () => {
    const outDir = mkdtempSync(join(dir, "stale-"));
    exportSft(store, options(join(outDir, "sft.jsonl")));
    writeFileSync(join(outDir, "sft.jsonl.images", `${PNG_SHA}.png`), "not the screenshot");
    exportSft(store, options(join(outDir, "sft.jsonl")));
    expect(sha256Hex(readFileSync(join(outDir, "sft.jsonl.images", `${PNG_SHA}.png`)))).toBe(PNG_SHA);
  });

  it("a corrupted artefact fails the export with a typed error and leaves no output", () => {
    const file = artefactFile();
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    damaged[damaged.length - 1] = (damaged[damaged.length - 1] ?? 0) ^ 0xff;
    writeFileSync(file, damaged);
    try {
      expect(() => readVerifiedArtefact(store, PNG_SHA)).toThrow(/damaged/);
      const outDir = mkdtempSync(join(dir, "corrupt-"));
      const e = failure(() => exportSft(store, options(join(outDir, "sft.jsonl"))));
      expect(e).toBeInstanceOf(EnvironmentError);
      expect(e.code).toBe("export.artefact_corrupt");
      expect(e.message).toContain(PNG_SHA);
      expect(filesBelow(outDir)).toEqual([]);
      expect(readdirSync(outDir)).toEqual([]); // not even an empty images folder
    } finally {
      writeFileSync(file, good);
    }
    expect(readVerifiedArtefact(store, PNG_SHA)).toEqual(PNG);
  });

  it("a missing artefact fails the export, keeps the previous export whole and removes nothing of it", () => {
    const outDir = mkdtempSync(join(dir, "missing-"));
    const out = join(outDir, "sft.jsonl");
    exportSft(store, options(out));
    const before = readFileSync(out, "utf8");
    const file = artefactFile();
    const good = readFileSync(file);
    rmSync(file);
    try {
      // The earlier export's image is there and right, so it is kept; the new file is not written.
      writeFileSync(out, "previous export\n");
      const e = failure(() => exportSft(store, options(out)));
      expect(e.code).toBe("export.missing_artefact");
      expect(readFileSync(out, "utf8")).toBe("previous export\n");
      expect(filesBelow(outDir)).toEqual(["sft.jsonl", `sft.jsonl.images/${PNG_SHA}.png`]);
    } finally {
      writeFileSync(file, good);
    }
    exportSft(store, options(out));
    expect(readFileSync(out, "utf8")).toBe(before);
  });
});
