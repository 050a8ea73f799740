import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { json, newestRunCount, spawnCli, waitFor, withStore } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Episodes recorded in the newest run so far; 0 before the child has created its store. */
const episodes = (storeDir: string) =>
  newestRunCount(storeDir, (s, runId) => s.listTrajectories(runId).length);

// The paper's defaults: 4 methods × 10 iterations × 100 maps, far longer than the wait for the first episode.
const SKL = ["--json", "skl", "frozenlake", "--iterations", "10"];
const FULL = 4 * 10 * 100;

describe("skl frozenlake under the run layer's signal policy", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s stops between episodes, writes what completed, marks the run interrupted, says it cannot resume, exits %i",
    async (signal, code) => {
      const store = join(dir, `store-${signal}`);
      const outDir = join(dir, `out-${signal}`);
      const cli = await spawnCli([...SKL, "--store", store, "--out-dir", outDir]);
      let exited = false;
      void cli.done.then(() => {
        exited = true;
      });
      await waitFor(() => exited || episodes(store) > 0);
      expect(exited, "the command ended before it could be interrupted").toBe(false);
      cli.child.kill(signal);
      const r = await cli.done;
      expect(r.code, r.stderr).toBe(code);
      const out = json<{
        runId: string;
        status: string;
        report: { interrupted?: boolean; methods: Array<{ iterations: unknown[] }> };
        files: { json: string };
      }>(r);
      expect(out.status).toBe("interrupted");
      expect(r.stderr).toContain(`run ${out.runId} interrupted; skl runs cannot be resumed`);
      expect(r.stderr).not.toContain("resume with:");
      // What completed is written: the report says it was interrupted and holds whole iterations only.
      const report = JSON.parse(readFileSync(out.files.json, "utf8")) as typeof out.report;
      expect(report).toEqual(out.report);
      expect(report.interrupted).toBe(true);
      expect(report.methods.length).toBeLessThan(4);
      const { status, statuses } = withStore(store, (s) => ({
        status: s.getRun(out.runId)?.status,
        statuses: s.listTrajectories(out.runId).map((t) => t.status),
      }));
      expect(status).toBe("interrupted");
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.length).toBeLessThan(FULL);
      expect(statuses).not.toContain("running");
      expect(statuses).not.toContain("infra_failed");
    },
    300_000,
  );
});
