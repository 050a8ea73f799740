import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { buildSync } from "esbuild";
import { expect } from "vitest";
import { sha256Hex } from "../../src/core/index.ts";
import { DATABASE_FILE, openSqliteStore } from "../../src/store/index.ts";
import { DEFAULT_BATCH_STEPS } from "../../src/store/step-batch.ts";
import { CRASH_RUN_ID, crashStepRaw, JOURNAL_FILE } from "./crash-shared.ts";

/*
 * The crash tests' side: start crash-writer.ts in a child process and check the database after killing
 * it. After every kill the database must be intact, every finished trajectory whole, and nothing marked
 * finished that the writer had not finished. An end joins the store's batch (it commits with its last
 * steps, or later), so the ends a kill loses are the last ones the writer journalled: a suffix of each
 * writer's journal, holding fewer than a batch of uncommitted steps; every journalled end before them is
 * in the database with its status.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRITER = fileURLToPath(new URL("./crash-writer.ts", import.meta.url));

/**
 * The writer bundled once per test file into plain JavaScript (under node_modules, so that its packages
 * resolve): a child then starts without compiling TypeScript, a second or more sooner on a busy machine.
 */
let bundled: string | undefined;
function writerScript(): string {
  if (bundled !== undefined && existsSync(bundled)) return bundled;
  const dir = join(ROOT, "node_modules", ".cache", "rehearsal-crash-writer");
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `writer-${process.pid}-${Math.floor(performance.now())}.mjs`);
  buildSync({
    entryPoints: [WRITER],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile: out,
    logLevel: "warning",
  });
  bundled = out;
  return out;
}
/**
 * Removes the bundled writer; each test file calls it in its `afterAll`. (Not a hook of this module: in
 * the fast project one worker imports the harness once for several files, so a module-level hook would
 * run after the first file only, and the next file would start writers from a removed bundle.)
 */
export function removeWriterBundle(): void {
  if (bundled !== undefined) rmSync(bundled, { force: true });
  bundled = undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits (polling, generous limit) until the database holds a finished episode of `generation`. */
export async function waitForFinished(dir: string, generation: number, limitMs = 120_000): Promise<void> {
  const path = join(dir, DATABASE_FILE);
  const deadline = performance.now() + limitMs;
  const committed = () => {
    if (!existsSync(path)) return false;
    const db = new Database(path, { readonly: true });
    try {
      return (
        db
          .prepare("SELECT 1 FROM trajectories WHERE id LIKE ? AND status != 'running' LIMIT 1")
          .get(`g${generation}-e%`) !== undefined
      );
    } catch {
      return false; // not created or migrated yet
    } finally {
      db.close();
    }
  };
  while (!committed()) {
    if (performance.now() > deadline)
      throw new Error(`writer ${generation} finished no episode in ${limitMs} ms`);
    await sleep(5);
  }
}

export interface Child {
  process: ChildProcess;
  /** Lets the writer open the store and write (it starts up before, and waits). */
  go(): void;
  ready: Promise<void>;
  exited: Promise<number | null>;
  stderr: () => string;
}

export function startWriter(dir: string, generation: number, batchSteps?: number): Child {
  const args = [dir, String(generation), ...(batchSteps === undefined ? [] : [String(batchSteps)])];
  const child = spawn(process.execPath, [writerScript(), ...args], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`writer exited (${code}) before ready:\n${stderr}`)));
  });
  ready.catch(() => undefined);
  child.stdin?.on("error", () => undefined); // a writer killed before "go" closes its end
  const go = () => void child.stdin?.write("go\n");
  return { process: child, go, ready, exited, stderr: () => stderr };
}

interface Journal {
  /** id → status, for every complete end line, in journal order. */
  finished: Map<string, string>;
  /** Ids whose startTrajectory returned. */
  started: Set<string>;
}

function readJournal(dir: string): Journal {
  const path = join(dir, JOURNAL_FILE);
  const finished = new Map<string, string>();
  const started = new Set<string>();
  if (!existsSync(path)) return { finished, started };
  const text = readFileSync(path, "utf8");
  // The last line may be cut off by the kill: only newline-terminated lines count.
  for (const line of text.split("\n").slice(0, -1)) {
    const m = /^(g\d+-e\d+) (complete|infra_failed|started)$/.exec(line);
    expect(m, `journal line ${JSON.stringify(line)}`).not.toBeNull();
    if (m?.[2] === "started") started.add(m[1] as string);
    else if (m?.[1] && m[2]) finished.set(m[1], m[2]);
  }
  return { finished, started };
}

export interface Stats {
  finished: number;
  running: number;
  /**
   * Episodes the kill interrupted: started (journalled) but neither journalled finished nor finished in
   * the database. Each is absent from the database (its start waited in the batch) or running.
   */
  interrupted: number;
  /** Steps committed to trajectories that are still running. */
  runningSteps: number;
  /** Ends the writer journalled (finishTrajectory returned) that the kill lost: still running or absent. */
  lostEnds: number;
}

/**
 * Checks the database after a kill; `generation` limits the deep checks (undefined: all). With
 * `batchSteps` (the writer commits only when that many steps wait), each writer's committed steps are
 * whole batches (a batch commits all at once or not at all).
 */
export function verify(dir: string, generation: number | undefined, batchSteps?: number): Stats {
  const db = new Database(join(dir, DATABASE_FILE));
  expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
  expect(db.pragma("foreign_key_check")).toEqual([]);
  db.close();

  const journal = readJournal(dir);
  const store = openSqliteStore({ dir });
  try {
    const headers = store.listTrajectories(CRASH_RUN_ID);
    const stats: Stats = { finished: 0, running: 0, interrupted: 0, runningSteps: 0, lostEnds: 0 };
    const stepsByGeneration = new Map<number, number>();
    for (const id of journal.started) {
      if (generation !== undefined && !id.startsWith(`g${generation}-`)) continue;
      if (journal.finished.has(id)) continue;
      const header = headers.find((h) => h.id === id);
      if (header !== undefined && header.status !== "running") continue; // killed before the journal line
      stats.interrupted += 1;
    }
    // One writer has one episode in flight at a time.
    if (generation !== undefined) expect(stats.interrupted).toBeLessThanOrEqual(1);
    const finishedNotJournalled: string[] = [];
    for (const header of headers) {
      const gen = header.meta.generation as number;
      if (generation !== undefined && gen !== generation) continue;
      const intended = header.meta.intended as number;
      const t = store.getTrajectory(header.id);
      expect(t).toBeDefined();
      if (!t) continue;
      stepsByGeneration.set(gen, (stepsByGeneration.get(gen) ?? 0) + t.steps.length);
      expect(t.steps.map((s) => s.index)).toEqual([...Array(t.steps.length).keys()]);
      expect(t.steps.length).toBe(header.stepCount);
      for (const s of t.steps) {
        expect(s.raw).toBe(crashStepRaw(t.id, s.index));
        const shot = s.observation.screenshot;
        if (shot) {
          expect(shot.bytes).toBeUndefined();
          const bytes = store.getArtefact(shot.sha256);
          expect(bytes, `artefact ${shot.sha256} of ${t.id}`).toBeDefined();
          if (bytes) expect(sha256Hex(bytes)).toBe(shot.sha256);
        }
      }
      if (t.status === "running") {
        stats.running += 1;
        stats.runningSteps += t.steps.length;
        expect(t.steps.length).toBeLessThanOrEqual(intended);
      } else {
        stats.finished += 1;
        // Nothing is finished that the writer had not finished: all intended steps are there.
        expect(t.steps.length, `steps of finished ${t.id}`).toBe(intended);
        expect(t.endedAtMs).toBeDefined();
        if (!journal.finished.has(t.id)) finishedNotJournalled.push(t.id);
      }
    }
    // The kill can land between finishTrajectory and the journal write: at most one per generation.
    const byGeneration = new Map<string, number>();
    for (const id of finishedNotJournalled) {
      const gen = id.split("-")[0] ?? "";
      byGeneration.set(gen, (byGeneration.get(gen) ?? 0) + 1);
    }
    for (const count of byGeneration.values()) expect(count).toBeLessThanOrEqual(1);

    if (batchSteps !== undefined) {
      for (const [gen, steps] of stepsByGeneration) expect(steps % batchSteps, `steps of g${gen}`).toBe(0);
    }
    // Each writer's journalled ends: those in the database (finished, whole, with the journalled
    // status) come first; the lost ones after them, with fewer than a batch of steps not committed.
    const byId = new Map(headers.map((h) => [h.id, h]));
    const lost = new Map<string, { ends: number; uncommitted: number }>();
    for (const [id, status] of journal.finished) {
      if (generation !== undefined && !id.startsWith(`g${generation}-`)) continue;
      const gen = id.split("-")[0] ?? "";
      const header = byId.get(id);
      const lostOf = lost.get(gen);
      if (header !== undefined && header.status !== "running") {
        expect(lostOf, `${id} committed after a lost end of ${gen}`).toBeUndefined();
        expect(header.status).toBe(status);
        expect(header.stepCount).toBe(header.meta.intended);
        continue;
      }
      // (An absent one had its start and every step waiting in the batch.)
      const entry = lostOf ?? { ends: 0, uncommitted: 0 };
      entry.ends += 1;
      if (header !== undefined) entry.uncommitted += (header.meta.intended as number) - header.stepCount;
      lost.set(gen, entry);
      stats.lostEnds += 1;
    }
    for (const [gen, { uncommitted }] of lost) {
      expect(uncommitted, `uncommitted steps of ${gen}'s lost ends`).toBeLessThan(
        batchSteps ?? DEFAULT_BATCH_STEPS,
      );
    }
    return stats;
  } finally {
    store.close();
  }
}
