import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";

/**
 * `shareBrowserAcrossFile()` in one non-isolated worker (a real Vitest run of the fixture files
 * `test/fixtures/web-browser-worker/*.fixture.ts`, in name order, one worker, real Chromium): with the
 * fast project's environment the worker keeps one browser across files, a file that kills it or closes
 * the pool on purpose leaves the next file a fresh one, and no browser outlives the run; with the plain
 * node environment (no worker scope) every file launches and closes its own, as in the slow project.
 */

const run = promisify(execFile);
const FIXTURES = "test/fixtures/web-browser-worker";
const Seen = z.object({
  file: z.string(),
  pid: z.number().int(),
  tag: z.string().min(1),
  worker: z.number().int(),
});
type Seen = z.infer<typeof Seen>;

const dir = mkdtempSync(join(tmpdir(), "rehearsal-sharing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture run in `mode`, on `files` (default all): what each file saw, by file name. */
async function fixtureRun(mode: "worker" | "file", files: string[] = []): Promise<Map<string, Seen>> {
  const recordPath = join(dir, `${mode}.jsonl`);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("VITEST")) env[k] = v;
  const args = [
    "node_modules/vitest/vitest.mjs",
    "run",
    "--config",
    `${FIXTURES}/vitest.config.ts`,
    ...files,
  ];
  await run(process.execPath, args, {
    env: { ...env, REHEARSAL_SHARING_MODE: mode, REHEARSAL_SHARING_RECORD: recordPath },
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = readFileSync(recordPath, "utf8").trim().split("\n");
  return new Map(lines.map((l) => Seen.parse(JSON.parse(l))).map((s) => [s.file, s]));
}

/** Whether the browser main process `seen` saw is still running (same pid AND same launch tag). */
function alive(seen: Seen): boolean {
  const path = `/proc/${seen.pid}/cmdline`;
  if (!existsSync(path)) return false;
  try {
    return readFileSync(path, "utf8").split("\0").includes(seen.tag);
  } catch {
    return false; // exited while read
  }
}

describe("one Chromium per test worker", () => {
  it("is kept across files in a worker scope, renewed after a kill or a close, and never outlives the run", async () => {
    // Both runs at once: each is mostly waiting on its browser and its worker.
    const [shared, perFile] = await Promise.all([
      fixtureRun("worker"),
      fixtureRun("file", [`${FIXTURES}/a.fixture.ts`, `${FIXTURES}/b.fixture.ts`]),
    ]);
    const seen = (m: Map<string, Seen>, f: string) => {
      const s = m.get(f);
      if (!s) throw new Error(`file ${f} recorded nothing`);
      return s;
    };
    const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((f) => seen(shared, f)) as [
      Seen,
      Seen,
      Seen,
      Seen,
      Seen,
    ];
    // One worker ran all five files.
    expect(new Set([a, b, c, d, e].map((s) => s.worker)).size).toBe(1);
    // a, b and c share one launch; c kills it, so d gets a relaunch; d closes the pool, so e gets a new one.
    expect(b.tag).toBe(a.tag);
    expect(c.tag).toBe(a.tag);
    expect(d.tag).not.toBe(c.tag);
    expect(e.tag).not.toBe(d.tag);
    expect(e.tag).not.toBe(a.tag);
    // Without a worker scope, each file of the same worker launches its own browser.
    const [pa, pb] = ["a", "b"].map((f) => seen(perFile, f)) as [Seen, Seen];
    expect(pb.worker).toBe(pa.worker);
    expect(pb.tag).not.toBe(pa.tag);
    // The runs are over: none of the browsers they launched is still running.
    expect([a, d, e, pa, pb].filter(alive)).toEqual([]);
  });
});
