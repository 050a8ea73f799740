import { describe, expect, it } from "vitest";
import { json, runMain, waitFor } from "../cli/run-cli.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { SIGNALS, signalStore, startChild } from "./web-signals.ts";

/**
 * A web `run` under SIGTERM/SIGINT (the faults issue): the episode in flight is aborted, never
 * `infra_failed`, and `--resume` plays only the missing episodes. Real Chromium, real SQLite, the real
 * bin.
 */
const on = signalStore("rehearsal-web-run-signals-");
const { store, use, statusOf } = on;

shareBrowserAcrossFile();

describe("web run under SIGTERM/SIGINT: the episode in flight is aborted, never infra_failed", () => {
  const RUN = ["--json", "run", "--env", "web", "--tasks", "click-checkboxes,click-dialog"];
  const EPISODES = 4;
  it.each(SIGNALS)(
    "%s → exit %i, interrupted; --resume plays only the missing episodes",
    async (signal, code) => {
      const child = await startChild(on, [
        ...RUN,
        "--policy",
        "heuristic",
        "-n",
        String(EPISODES),
        "--store",
        store,
      ]);
      const id = child.runId as string;
      expect(id, child.cli.stderr()).toBeTruthy();
      await waitFor(() => child.exited() || use((s) => s.listTrajectories(id).length) > 0);
      expect(child.exited(), "the run ended before it could be interrupted").toBe(false);
      child.cli.child.kill(signal);
      const r = await child.cli.done;
      expect(r.code, r.stderr).toBe(code);
      expect(statusOf(id)).toBe("interrupted");
      const statuses = use((s) => s.listTrajectories(id).map((t) => t.status));
      expect(statuses).not.toContain("infra_failed");
      expect(statuses).not.toContain("running");
      expect(statuses.filter((s) => s === "aborted").length).toBeLessThanOrEqual(1);
      const resumed = await runMain(["--json", "run", "--resume", id, "--store", store]);
      expect(resumed.code, resumed.stderr).toBe(0);
      const out = json<{ status: string; summary: { episodes: number } }>(resumed);
      expect(out).toMatchObject({ status: "complete", summary: { episodes: 2 * EPISODES } });
      const after = use((s) => s.listTrajectories(id).map((t) => t.status));
      expect(after).not.toContain("infra_failed");
    },
    300_000,
  );
});
