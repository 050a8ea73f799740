import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Action,
  createRandom,
  isRehearsalError,
  type Observation,
  type Random,
} from "../../../src/core/index.ts";
import {
  createWebEnvironment,
  ReplayBrancher,
  ReplayMismatchError,
  type WebEnvironment,
} from "../../../src/envs/web/index.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";
import { FIXTURE_PAGES } from "./helpers.ts";

const WORDS = ["alpha", "Nadia", "42", "hello world"];
const MINE = ["click-button", "enter-text"];

/** A random but valid action from the observation's axtree (seeded). */
function randomAction(obs: Observation, rng: Random): Action {
  const lines = (obs.axtree ?? "").split("\n").filter((l) => /^\s*\[\d+\]/.test(l));
  const roll = rng.next();
  if (lines.length === 0 || roll < 0.1) return { type: "key", keys: rng.pick(["Tab", "Enter", "ctrl+a"]) };
  const line = rng.pick(lines);
  const id = /\[(\d+)\]/.exec(line)?.[1] as string;
  if (/ textbox /.test(line) && roll < 0.6) return { type: "type", elementId: id, text: rng.pick(WORDS) };
  const select = / combobox .*options=(\[.*\])/.exec(line);
  if (select?.[1]) {
    const options = JSON.parse(select[1]) as string[];
    if (options.length > 0) return { type: "select", elementId: id, value: rng.pick(options) };
  }
  if (roll < 0.15) return { type: "scroll", direction: rng.pick(["down", "up"] as const), amount: 120 };
  return { type: "click", elementId: id };
}

interface Recorded {
  taskId: string;
  seed: number;
  actions: Action[];
  /** prints[k] = fingerprint after actions[0..k). */
  prints: string[];
  parts: Array<Record<string, unknown>>;
}

/** Which fingerprint parts differ, with the first differing characters (for failure messages). */
function partsDiff(a: Record<string, unknown>, b: Record<string, unknown>): string {
  const out: string[] = [];
  for (const key of Object.keys(a)) {
    const x = JSON.stringify(a[key]);
    const y = JSON.stringify(b[key]);
    if (x === y) continue;
    let i = 0;
    while (x[i] === y[i]) i++;
    out.push(
      `${key}: …${x.slice(Math.max(0, i - 80), i + 80)}… vs …${y.slice(Math.max(0, i - 80), i + 80)}…`,
    );
  }
  return out.join("; ");
}

shareBrowserAcrossFile();

describe("web replay", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("replay (reset with the same seed + the same prefix) reproduces the fingerprint of >= 50 random prefixes", async () => {
    const rng = createRandom("web-replay-test");
    const tasks = env.suite.list().map((t) => t.id);
    const recorded: Recorded[] = [];
    let prefixes = 0;
    const broken = new Set<string>();
    for (let round = 0; prefixes < 60; round++) {
      const taskId = tasks[round % tasks.length] as string;
      if (broken.has(taskId)) continue;
      const seed = rng.int(1000);
      let obs: Observation;
      try {
        obs = await env.reset({ taskId, seed });
      } catch (error) {
        // Another task's page that does not load is that task's own test failure, not replay's.
        if (isRehearsalError(error) && error.code === "env.task_page_invalid" && !MINE.includes(taskId)) {
          broken.add(taskId);
          continue;
        }
        throw error;
      }
      const rec: Recorded = { taskId, seed, actions: [], prints: [await env.fingerprint()], parts: [] };
      rec.parts.push(await env.fingerprintParts());
      for (let i = 0; i < 4; i++) {
        const action = randomAction(obs, rng);
        const r = await env.step(action);
        rec.actions.push(action);
        rec.prints.push(await env.fingerprint());
        rec.parts.push(await env.fingerprintParts());
        prefixes += 1;
        obs = r.observation;
        if (r.terminated || r.truncated) break;
      }
      recorded.push(rec);
    }
    expect(prefixes).toBeGreaterThanOrEqual(50);
    for (const id of MINE) expect(recorded.some((r) => r.taskId === id)).toBe(true);
    // Replay every episode from a fresh reset and check the state after every prefix.
    const mismatches: string[] = [];
    for (const rec of recorded) {
      await env.reset({ taskId: rec.taskId, seed: rec.seed });
      if ((await env.fingerprint()) !== rec.prints[0]) mismatches.push(`${rec.taskId}/${rec.seed}@0`);
      for (let k = 0; k < rec.actions.length; k++) {
        await env.step(rec.actions[k] as Action);
        if ((await env.fingerprint()) !== rec.prints[k + 1]) {
          const diff = partsDiff(rec.parts[k + 1] ?? {}, await env.fingerprintParts());
          mismatches.push(
            `${rec.taskId}/${rec.seed}@${k + 1} ${JSON.stringify(rec.actions.slice(0, k + 1))} ${diff}`,
          );
        }
      }
    }
    expect(mismatches).toEqual([]);
    // branchFrom does the same and checks the fingerprint itself.
    for (const rec of recorded.slice(0, 5)) {
      const out = await env.branchFrom(rec.actions, {
        taskId: rec.taskId,
        seed: rec.seed,
        expectedFingerprint: rec.prints[rec.prints.length - 1] as string,
      });
      expect(out.mismatch).toBeNull();
      expect(out.replayedSteps).toBe(rec.actions.length);
    }
  }, 300_000);

  it("same seed gives the same page; different seeds give different pages", async () => {
    const seen = new Map<number, string>();
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      const obs = await env.reset({ taskId: "click-button", seed });
      seen.set(seed, obs.axtree ?? "");
    }
    const again = await env.reset({ taskId: "click-button", seed: 3 });
    expect(again.axtree).toBe(seen.get(3));
    expect(new Set(seen.values()).size).toBeGreaterThanOrEqual(5);
    const a = await env.reset({ taskId: "enter-text", seed: 9 });
    const fa = await env.fingerprint();
    const b = await env.reset({ taskId: "enter-text", seed: 9 });
    expect(await env.fingerprint()).toBe(fa);
    expect(b.instruction).toBe(a.instruction);
  });

  it("snapshot/restore round-trips on tasks whose page supports it", async () => {
    await env.reset({ taskId: "enter-text", seed: 5 });
    expect(await env.supportsSnapshot()).toBe(true);
    const obs = await env.step({ type: "key", keys: "Tab" });
    await env.step({ type: "type", text: "abc" });
    const snap = await env.snapshot();
    const print = await env.fingerprint();
    await env.reset({ taskId: "click-button", seed: 1 });
    const restored = await env.restore(JSON.parse(JSON.stringify(snap)));
    expect(await env.fingerprint()).toBe(print);
    expect(restored.focused).toMatch(/textbox "Name" value="abc" focused/);
    expect(obs.observation.error).toBeUndefined();
  });
});

describe("replay mismatch and the prefix cache", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ tasksDir: FIXTURE_PAGES, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("a non-deterministic page is reported as env.replay_mismatch, never ignored", async () => {
    await env.reset({ taskId: "test-nondeterministic", seed: 0 });
    const recorded = await env.fingerprint();
    const err = await env.branchFrom([], { expectedFingerprint: recorded }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayMismatchError);
    expect(isRehearsalError(err) && err.code).toBe("env.replay_mismatch");
    expect(isRehearsalError(err) && err.category).toBe("environment");
    const reported = await env.branchFrom([], { expectedFingerprint: recorded, onMismatch: "report" });
    expect(reported.mismatch?.code).toBe("env.replay_mismatch");
    expect(reported.mismatch?.expected).toBe(recorded);
  });

  it("ReplayBrancher replays only from the nearest cached ancestor and detects mismatches", async () => {
    const created: WebEnvironment[] = [];
    const brancher = new ReplayBrancher({
      maxLive: 2,
      create: async () => {
        const e = await createWebEnvironment({ tasksDir: FIXTURE_PAGES, observation: { screenshot: false } });
        created.push(e);
        return e;
      },
    });
    try {
      const base = { taskId: "widgets", seed: 3 };
      const a1: Action = { type: "scroll", direction: "down", amount: 100 };
      const a2: Action = { type: "scroll", direction: "down", amount: 50 };
      const a3: Action = { type: "key", keys: "Tab" };
      const root = await brancher.branchFrom({ ...base, prefix: [a1] });
      expect(root).toMatchObject({ reusedSteps: 0, replayedSteps: 1, mismatch: null });
      await brancher.park(root);
      // Child of [a1]: takes the parked context, replays only a2.
      const child = await brancher.branchFrom({ ...base, prefix: [a1, a2] });
      expect(child).toMatchObject({ reusedSteps: 1, replayedSteps: 1 });
      expect(child.observation?.instruction).toBe("scrollY=150");
      await brancher.park(child);
      // [a1] was consumed: a sibling [a1, a3] replays from scratch and is checked against nothing yet.
      const sibling = await brancher.branchFrom({ ...base, prefix: [a1, a3] });
      expect(sibling).toMatchObject({ reusedSteps: 0, replayedSteps: 2 });
      await brancher.park(sibling);
      // The recorded fingerprint of [a1, a2] is checked when it is rebuilt from scratch.
      expect(brancher.recordedFingerprint(base.taskId, base.seed, [a1, a2])).toBe(child.fingerprint);
      const third = await brancher.branchFrom({ ...base, prefix: [a1, a2, a3] });
      expect(third.reusedSteps).toBe(2);
      await brancher.park(third);
      await brancher.park(await brancher.branchFrom({ ...base, prefix: [a2] }));
      expect(brancher.stats()).toMatchObject({ live: 2, hits: 2, misses: 3 });
      expect(brancher.stats().evictions).toBeGreaterThanOrEqual(1);
      // A non-deterministic task: its recorded fingerprint never comes back.
      const nd = { taskId: "test-nondeterministic", seed: 0 };
      const first = await brancher.branchFrom({ ...nd, prefix: [] });
      await brancher.discard(first);
      const err = await brancher.branchFrom({ ...nd, prefix: [] }).catch((e: unknown) => e);
      expect(isRehearsalError(err) && err.code).toBe("env.replay_mismatch");
      expect(brancher.stats().mismatches).toBe(1);
    } finally {
      await brancher.close();
      for (const e of created) await e.close();
    }
  });
});
