import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webStateViewer } from "../../src/envs/web/state-view.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, withStore } from "./run-cli.ts";
import { recordRunWorldbook, runOnWorldbook } from "./worldmodel-helpers.ts";

/**
 * A web worldbook from real Chromium episodes of one short task (heuristic policy), then `run` with the
 * same policy on `--env worldmodel:DIR`: the policy reads the rendered accessibility text unchanged.
 */
const root = mkdtempSync(join(tmpdir(), "wm-web-cli-"));
const realStore = join(root, "real");
const store = join(root, "sim");
const book = join(root, "book");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TASK = "click-button";

shareBrowserAcrossFile();

beforeAll(async () => {
  await recordRunWorldbook({
    runArgs: ["--env", "web", "--tasks", TASK, "--policy", "heuristic", "-n", "4", "--seed", "2"],
    store: realStore,
    book,
    viewer: webStateViewer,
  });
}, 300_000);

describe("--env worldmodel:DIR on a web worldbook", () => {
  it("run with the web heuristic policy plays the simulated pages and records the rules fired", async () => {
    const r = await runOnWorldbook(["run"], {
      book,
      store,
      tasks: TASK,
      policy: "heuristic",
      extra: ["-n", "2", "--seed", "2"],
    });
    const out = json<{ runId: string; summary: { episodes: number; successRate: number } }>(r);
    expect(out.summary.episodes).toBe(2);
    withStore(store, (s) => {
      expect(s.getRun(out.runId)?.config).toMatchObject({
        policy: "heuristic",
        worldbook: { family: "web" },
      });
      const [trajectory] = [...s.iterateTrajectories(out.runId, { status: "complete" })];
      const info = trajectory?.steps[0]?.info.worldmodel as { fired: string[]; unknown: boolean };
      expect(info.unknown).toBe(false);
      expect(info.fired.length).toBeGreaterThan(0);
    });
  }, 120_000);
});
