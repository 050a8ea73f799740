import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runChessSklRl } from "../../src/experiments/index.ts";
import { type EpisodeRecorder, memoryRecorder } from "../../src/knowledge/index.ts";
import type { RunStore } from "../../src/store/index.ts";

describe("SKL-RL chess under a stop request", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-skl-chess-stop-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the completed rates, drops the rest and says so in the manifest", async () => {
    const controller = new AbortController();
    const base = memoryRecorder("stop");
    // The stop comes once the first rate's two episodes (SKL-RL, then the baseline) are recorded.
    let finished = 0;
    const store = new Proxy(base.store, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (key !== "finishTrajectory") return typeof value === "function" ? value.bind(target) : value;
        return (...args: Parameters<RunStore["finishTrajectory"]>) => {
          target.finishTrajectory(...args);
          if (++finished === 2) controller.abort("SIGTERM");
        };
      },
    });
    const recorder: EpisodeRecorder = { ...base, store, signal: controller.signal };
    const outDir = join(dir, "out");
    const options = { puzzleIds: ["LQZKc"], expertRates: [0.5, 0.25], engineDepth: 2, n: 2, h: 1, outDir };
    const result = await runChessSklRl(options, { recorder });
    expect(result.interrupted).toBe(true);
    expect(result.rates.map((r) => r.label)).toEqual(["rate-0.500"]);
    const manifest = JSON.parse(readFileSync(result.manifest, "utf8")) as {
      interrupted?: boolean;
      rates: Array<{ label: string }>;
    };
    expect(manifest.interrupted).toBe(true);
    expect(manifest.rates.map((r) => r.label)).toEqual(["rate-0.500"]);
    expect(existsSync(join(outDir, "rate-0.500", "trajectories.jsonl"))).toBe(true);
    expect(existsSync(join(outDir, "rate-0.250"))).toBe(false);
    // Nothing started after the stop: the two episodes of the completed rate only.
    const trajectories = base.store.listTrajectories(base.runId);
    expect(trajectories.map((t) => t.status)).toEqual(["complete", "complete"]);
    expect(result.engine.pids.length).toBeGreaterThan(0);
  }, 120_000);
});
