import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { NoiseEventRecord } from "../../src/noise/index.ts";
import type { RlNoiseRecord, RolloutGroupsReport } from "../../src/rl/index.ts";
import { openStore } from "../../src/store/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-rlweb-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `rehearsal --json rl rollouts` on one built-in web task: `group` members of at most `tMax` steps. */
const webRollouts = (o: {
  store: string;
  task: string;
  policy: string;
  group: number;
  tMax: number;
  extra: string[];
}) =>
  runMain([
    "--json",
    "rl",
    "rollouts",
    "--env",
    "web",
    "--suite",
    "builtin",
    "--tasks",
    o.task,
    "--policy",
    o.policy,
    "--group",
    String(o.group),
    "--t-max",
    String(o.tMax),
    ...o.extra,
    "--store",
    o.store,
  ]);

shareBrowserAcrossFile();

it("rl rollouts runs a small group on a short built-in web task", async () => {
  const store = join(dir, "store");
  const r = await webRollouts({
    store,
    task: "click-button",
    policy: "oracle",
    group: 2,
    tMax: 5,
    extra: ["--seed", "2"],
  });
  expect(r.code, r.stderr).toBe(0);
  const { rl } = json<{ summary: { rl: RolloutGroupsReport } }>(r).summary;
  expect(rl.groups).toHaveLength(1);
  const [g] = rl.groups;
  expect(g?.members).toHaveLength(2);
  // The oracle solves it in the same steps every time: all succeed, ties, advantage 0 for both.
  expect(g?.stats.p).toBe(1);
  expect(g?.members.map((m) => m.advantage)).toEqual([0, 0]);
  expect(g?.members[0]?.reward).toBeGreaterThan(1);
}, 240_000);

it("--noise train gives every member of a group the group's schedule: equal events at equal steps", async () => {
  const store = join(dir, "noise-store");
  const r = await webRollouts({
    store,
    task: "enter-text",
    policy: "random",
    group: 3,
    tMax: 6,
    extra: ["--noise", "train", "--noise-rate", "0.5", "--seed", "4"],
  });
  expect(r.code, r.stderr).toBe(0);
  const out = json<{
    runId: string;
    summary: {
      noise: RlNoiseRecord;
      oracleSteps: Record<string, number | null>;
      rl: RolloutGroupsReport;
    };
  }>(r);
  const [group] = out.summary.noise.groups;
  expect(group).toMatchObject({ taskId: "enter-text", successRate: 0.5, rateFrom: "flag" });
  expect(group?.events.length).toBeGreaterThanOrEqual(3); // s = 0.5: 3 to 5 events
  expect(typeof out.summary.oracleSteps["enter-text"]).toBe("number"); // the web oracle is played once
  const db = openStore({ dir: store });
  try {
    const members = [...db.iterateTrajectories(out.runId, { status: "complete" })];
    expect(members).toHaveLength(3);
    expect(new Set(members.map((t) => t.seed))).toEqual(new Set([group?.groupSeed]));
    let firedInAll = 0;
    for (const t of members) {
      const fired = t.steps.flatMap((s, i) =>
        ((s.info.noise as { fired?: NoiseEventRecord[] } | undefined)?.fired ?? []).map((e) => ({
          at: i + 1,
          id: e.id,
          step: e.step,
          generator: e.generator,
          seed: e.seed,
        })),
      );
      // Every planned event after an action the episode outlived fired there, and nothing else did.
      const due = (group?.events ?? []).filter((e) => e.step >= 1 && e.step < t.steps.length);
      firedInAll += fired.length;
      expect(fired).toEqual(
        due.map((e) => ({ at: e.step, id: e.id, step: e.step, generator: e.generator, seed: e.seed })),
      );
    }
    expect(firedInAll).toBeGreaterThan(0); // (seed 4: an event at step 2 of episodes of 3–4 steps)
  } finally {
    db.close();
  }
}, 240_000);
