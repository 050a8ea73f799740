import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScheduleFile } from "../../src/noise/index.ts";
import { openStore } from "../../src/store/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-noise-eval-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Cell {
  [k: string]: number;
}
interface EvalOut {
  entrants: Array<{
    label: string;
    clean: { runId: string; perTask: Array<{ taskId: string; n: number; c: number }> };
    noisy: { runId: string; perTask: Array<{ taskId: string; n: number; c: number }> };
    perGenerator: Array<{ generator: string; tier: string; tasks: number }>;
    perNoiseTier: Array<{ generator: string }>;
    noise: { episodes: number; fired: number; recovered: number };
  }>;
  cross: Array<{ label: string; clean: Cell; noisy: Cell }>;
  schedule: { path: string; computed: boolean };
}

const TASKS = "login-user,click-checkboxes";

shareBrowserAcrossFile();

describe("rehearsal eval --noise heldout", () => {
  const schedule = join(dir, "schedule.json");
  it("precomputes a schedule, then evaluates two policies clean and noisy on it (cross-evaluation)", async () => {
    const s = await runMain(["noise", "schedule", "--tasks", TASKS, "--out", schedule]);
    expect(s.code, s.stderr).toBe(0);
    const file = readScheduleFile(schedule);
    const store = join(dir, "store");
    const args = ["--json", "eval", "--env", "web", "--tasks", TASKS, "--rollouts", "2", "--k", "1,2"];
    const r = await runMain([
      ...args,
      "--noise",
      "heldout",
      "--schedule",
      schedule,
      "--policies",
      "heuristic,heuristic-norecovery",
      "--store",
      store,
      "--entropy-states",
      "0",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<EvalOut>(r);
    expect(out.schedule).toEqual({ path: schedule, computed: false });
    expect(out.entrants.map((e) => e.label)).toEqual(["heuristic", "heuristic-norecovery"]);
    expect(out.cross.map((c) => c.label)).toEqual(["heuristic", "heuristic-norecovery"]);
    for (const e of out.entrants) {
      expect(e.clean.perTask.map((t) => t.n)).toEqual([2, 2]);
      expect(e.noisy.perTask.map((t) => t.n)).toEqual([2, 2]);
      // Every noisy episode got exactly the scheduled held-out event (or ended before its step).
      expect(e.noise.episodes).toBe(4);
      const generators = file.tasks.map((t) => t.events[0]?.generator).sort();
      expect(e.perGenerator.flatMap((g) => Array(g.tasks).fill(g.generator)).sort()).toEqual(generators);
    }
    // The noise events are stored with the steps: what fired, when, and when it was recovered.
    const db = openStore({ dir: store });
    try {
      const noisyRun = out.entrants[0]!.noisy.runId;
      const fired = [...db.iterateTrajectories(noisyRun, { status: "complete" })].flatMap((t) =>
        t.steps.flatMap(
          (st) => (st.info.noise as { fired?: Array<{ generator: string; step: number }> })?.fired ?? [],
        ),
      );
      const cleanRun = out.entrants[0]!.clean.runId;
      const cleanFired = [...db.iterateTrajectories(cleanRun, { status: "complete" })].flatMap((t) =>
        t.steps.filter((st) => st.info.noise !== undefined),
      );
      expect(cleanFired).toEqual([]);
      expect(fired.length).toBeGreaterThan(0);
      for (const f of fired)
        expect(file.tasks.some((t) => t.events[0]?.generator === f.generator)).toBe(true);
    } finally {
      db.close();
    }
  }, 300_000);

  it("rejects a malformed or incomplete schedule with a typed error (exit 2) that names the fix", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ not json");
    const r1 = await runMain([
      "eval",
      "--env",
      "web",
      "--tasks",
      TASKS,
      "--noise",
      "heldout",
      "--schedule",
      bad,
    ]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/bad\.json/);
    const r2 = await runMain([
      "eval",
      "--env",
      "web",
      "--tasks",
      `${TASKS},enter-text`,
      "--noise",
      "heldout",
      "--schedule",
      schedule,
      "--store",
      join(dir, "s2"),
    ]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/no event for enter-text.*rehearsal noise schedule/s);
    expect((await runMain(["eval", "--env", "web", "--noise", "everything"])).code).toBe(2);
    const fl = await runMain([
      "eval",
      "--env",
      "frozenlake",
      "--tasks",
      "4x4",
      "--rollouts",
      "1",
      "--noise",
      "heldout",
      "--store",
      join(dir, "s3"),
    ]);
    expect(fl.code, fl.stderr).toBe(2);
    expect(fl.stderr).toMatch(/cannot be perturbed/);
    expect((await runMain(["eval", "--env", "web", "--schedule", schedule])).code).toBe(2);
  }, 300_000);
});
