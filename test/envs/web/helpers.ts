import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Observation } from "../../../src/core/index.ts";
import { listDescendants } from "../../../src/envs/web/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURE_PAGES = join(here, "..", "..", "fixtures", "web", "pages");
export const FIXTURE_BAD_MANIFEST = join(here, "..", "..", "fixtures", "web", "bad-manifest");

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

/** Chromium processes below this test process. */
export function chromiumProcesses(): number {
  return listDescendants(process.pid).filter((p) => /chrom/i.test(p.comm) || /chromium/.test(p.cmdline))
    .length;
}

export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}
