import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { Action, Observation } from "../../../src/core/index.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURE_PAGES = join(here, "..", "..", "fixtures", "web", "pages");
export const FIXTURE_BAD_MANIFEST = join(here, "..", "..", "fixtures", "web", "bad-manifest");
/** MiniWoB-layout pages that misbehave: handlers that never return, reward 5, no genProblem, ... */
export const FIXTURE_FAULTS = join(here, "..", "..", "fixtures", "web", "faults");

/**
 * A web environment on a pool of its own (no screenshots, no step limit) over a temporary tasks
 * folder holding `files` (name → content), opened before the file's tests and closed, the folder
 * removed, after them; read `env`, `pool` and `dir` inside the tests.
 */
export function pagesEnvironment(prefix: string, files: Record<string, string>) {
  const open = {
    env: undefined as unknown as WebEnvironment,
    pool: undefined as unknown as BrowserPool,
    dir: "",
  };
  beforeAll(async () => {
    open.dir = mkdtempSync(join(tmpdir(), prefix));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(open.dir, name), content);
    open.pool = new BrowserPool();
    open.env = await createWebEnvironment(
      { tasksDir: open.dir, observation: { screenshot: false }, enforceMaxSteps: false },
      { pool: open.pool },
    );
  });
  afterAll(async () => {
    await open.env?.close();
    await open.pool?.close();
    if (open.dir) rmSync(open.dir, { recursive: true, force: true });
  });
  return open;
}

/** Element ids in an axtree whose line matches `pattern` (e.g. /button "Submit"/). */
export function idsWhere(observation: Observation, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const line of (observation.axtree ?? "").split("\n")) {
    const m = /^\s*\[(\d+)\]/.exec(line);
    if (m?.[1] && pattern.test(line)) out.push(m[1]);
  }
  return out;
}

export function idWhere(observation: Observation, pattern: RegExp): string {
  const [id] = idsWhere(observation, pattern);
  if (id === undefined) throw new Error(`no element matching ${pattern} in\n${observation.axtree}`);
  return id;
}

/**
 * The processes of this pool's own browser (its main process and every descendant): what the pool
 * launched, never other browsers on the machine or of other tests.
 */
export function poolProcesses(pool: BrowserPool): number[] {
  return pool.processIds();
}

/** How many of `pids` are still running (zombies count as gone). */
export function stillRunning(pids: ReadonlyArray<number>): number {
  return pids.filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state !== "Z" && state !== "X";
    } catch {
      return false;
    }
  }).length;
}

export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

/** The oracle's actions from the environment's current state, up to `n` (fewer when the task ends first). */
export async function oracleSteps(env: WebEnvironment, n: number): Promise<Action[]> {
  const path: Action[] = [];
  for (let i = 0; i < n; i++) {
    const a = await env.oracleAction();
    if (!a) break;
    path.push(a);
    const r = await env.step(a);
    if (r.terminated || r.truncated) break;
  }
  return path;
}
