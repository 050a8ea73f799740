import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/core/runtime.ts";
import {
  EnvsLoopOptionsSchema,
  EnvsLoopResultsSchema,
  runEnvsLoop,
  writeEnvsLoopOutputs,
} from "../../src/experiments/envs-loop/index.ts";
import { SklSdResultsSchema } from "../../src/experiments/skl-sd-train/results.ts";
import { runWmLoop } from "../../src/experiments/wm-loop/experiment.ts";
import { WmLoopResultsSchema } from "../../src/experiments/wm-loop/results.ts";
import { runWorldModelExperiment } from "../../src/experiments/worldmodel/experiment.ts";
import { createSignalController } from "../../src/runner/signals.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { runMain, spawnCli, waitFor } from "../cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-experiment-interrupt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readResults = (out: string) =>
  SklSdResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));

/** results.json exists and holds at least one completed row (it is rewritten whole after each row). */
function firstRowWritten(out: string): boolean {
  if (!existsSync(join(out, "results.json"))) return false;
  try {
    return readResults(out).rows.length > 0;
  } catch {
    return false;
  }
}

describe("interrupting an experiment (the real bin in a child process)", () => {
  it("skl-sd: SIGTERM after the first row → exit 143, results.json interrupted with the rows done; re-running completes", async () => {
    const out = join(dir, "skl-sd");
    const args = ["experiment", "skl-sd", "--scale", "small", "--seeds", "0,1", "--out", out];
    const cli = await spawnCli(args);
    let exited = false;
    let early = "";
    void cli.done.then((r) => {
      exited = true;
      early = `exit ${r.code}: ${r.stderr}`;
    });
    await waitFor(() => exited || firstRowWritten(out));
    expect(exited, `the command ended before it could be interrupted (${early})`).toBe(false);
    cli.child.kill("SIGTERM");
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(143);
    expect(r.stderr).toMatch(/experiment skl-sd interrupted: kept \d+ rows/);
    const interrupted = readResults(out);
    expect(interrupted.status).toBe("interrupted");
    expect(interrupted.rows.length).toBeGreaterThan(0);
    expect(interrupted.rows.length).toBeLessThan(2 * 7);
    expect(readFileSync(join(out, "pass1.svg"), "utf8")).toMatch(/^<svg/);

    // The same command again starts over and completes; the rows kept are its first rows.
    const again = await runMain(args);
    expect(again.code, again.stderr).toBe(0);
    const complete = readResults(out);
    expect(complete.status).toBe("complete");
    expect(complete.rows).toHaveLength(2 * 7);
    expect(complete.rows.slice(0, interrupted.rows.length)).toEqual(interrupted.rows);
  }, 300_000);
});

describe("the same mechanism in every experiment (a stop already requested)", () => {
  const stopped = () => {
    const source = new EventEmitter();
    const signals = createSignalController({ source, exit: () => {} });
    source.emit("SIGTERM");
    return signals;
  };

  it("wm-loop: no family starts; results.json is interrupted and schema-valid", async () => {
    const out = join(dir, "wm-loop");
    const signals = stopped();
    const results = await runWmLoop(
      { scale: "small", families: ["frozenlake"] },
      { out, now: () => 0, signal: signals.signal },
    );
    expect(results.status).toBe("interrupted");
    expect(results.families).toEqual([]);
    const file = WmLoopResultsSchema.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    expect(file.status).toBe("interrupted");
  });

  it("worldbook experiment: no setting starts; report.json says interrupted", async () => {
    const out = join(dir, "worldbook");
    const report = await runWorldModelExperiment({
      families: ["frozenlake"],
      scale: "small",
      out,
      signal: stopped().signal,
    });
    expect(report.status).toBe("interrupted");
    expect(report.settings).toEqual([]);
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8")).status).toBe("interrupted");
  });

  it("envs-loop: the search stops at once; results.json is interrupted and schema-valid", async () => {
    const out = join(dir, "envs-loop");
    const store = createMemoryStore();
    const signals = stopped();
    try {
      const options = EnvsLoopOptionsSchema.parse({ env: "terminal", scale: "small", seed: "0", out });
      const results = await runEnvsLoop({ runtime: createRuntime({ seed: "0" }), store, signals }, options);
      expect(results.status).toBe("interrupted");
      expect(results.policies).toEqual([]);
      const paths = writeEnvsLoopOutputs(out, results);
      const file = EnvsLoopResultsSchema.parse(JSON.parse(readFileSync(paths.json, "utf8")));
      expect(file.status).toBe("interrupted");
      // The run store stays consistent: the search run is marked interrupted, not left running.
      expect(store.listRuns().map((r) => r.status)).not.toContain("running");
    } finally {
      store.close();
    }
  }, 120_000);
});
