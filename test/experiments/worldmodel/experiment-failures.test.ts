import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWorldModelExperiment } from "../../../src/experiments/worldmodel/experiment.ts";

const out = mkdtempSync(join(tmpdir(), "wm-experiment-fail-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("runWorldModelExperiment with a failing setting", () => {
  it("records the failure with its typed error and still reports the other settings", async () => {
    const lake = {
      label: "lake",
      recording: {
        name: "lake",
        family: "frozenlake" as const,
        envOptions: { slippery: true },
        tasks: ["4x4"],
        batches: [{ policy: "random" as const, episodes: 20 }],
        seed: "f",
      },
      w2r: { policy: "random" as const, seeds: 2 },
      slip: true,
    };
    const broken = {
      ...lake,
      label: "broken",
      recording: { ...lake.recording, name: "broken", tasks: ["no-such-map"] },
    };
    const report = await runWorldModelExperiment({ families: [], settings: [broken, lake], out, seed: "f" });
    expect(report.scale).toBe("custom");
    expect(report.settings.map((s) => s.name)).toEqual(["lake"]);
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]).toMatchObject({
      name: "broken",
      label: "broken",
      error: { category: "user" },
    });
    expect(report.failures[0]?.error.message).toContain("no-such-map");
    const md = readFileSync(join(out, "report.md"), "utf8");
    expect(md).toContain("## Settings that failed");
    expect(md).toContain("- broken: `");
    expect(md).toContain("| lake | full |");
  }, 300_000);
});
