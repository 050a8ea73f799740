import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, isRehearsalError, type Observation, stableSeed } from "../../src/core/index.ts";
import { createWebEnvironment } from "../../src/envs/web/index.ts";
import { NoisyEnvironment, type PlannedNoiseEvent } from "../../src/noise/noisy-environment.ts";
import { describeEnvironmentConformance } from "../../src/testing/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";

/**
 * NoisyEnvironment through the environment conformance suite. It wraps the web environment (the
 * perturbable one: noise needs real pages) with a schedule that fires in every episode the suite plays
 * — after reset and after each of the first steps — so that every contract (determinism, no leaks
 * between episodes, snapshot round-trips, replay) is checked with noise live. One suite per schedule:
 * a widget stack that stays, a panel whose text keeps typing, a toast that closes by itself, a modal,
 * a scroll jump and a shrunk viewport; a native prompt held open from the start (every action the
 * script plays before the snapshot is refused by it); a noise tab in front (the script's Tab focuses
 * its textbox). A dialog refuses every later event and a tab takes the agent's actions, hence their
 * own schedules.
 */
type Plan = ReadonlyArray<[generator: string, step: number]>;
const PLANS: ReadonlyArray<{ name: string; plan: Plan; recovers: boolean }> = [
  {
    name: "widgets, scroll and viewport",
    plan: [
      ["notification-stack", 0],
      ["notes-panel-typing", 1],
      ["toast-auto", 1],
      ["modal-overlay", 2],
      ["scroll-jump-down", 3],
      ["viewport-shrink", 3],
    ],
    recovers: true,
  },
  { name: "a native prompt held open", plan: [["native-prompt", 0]], recovers: false },
  { name: "a noise tab in front", plan: [["tab-focus-switch", 1]], recovers: false },
];

function scheduleFor(plan: Plan) {
  return (taskId: string, seed: number): PlannedNoiseEvent[] =>
    plan.map(([generator, step], i) => ({
      id: `e${i}`,
      step,
      generator,
      seed: stableSeed(taskId, seed, generator) & 0x7fffffff,
    }));
}

const SCRIPT: Action[] = [
  { type: "click", x: 60, y: 20 },
  { type: "key", keys: "Tab" },
  { type: "type", text: "hello" },
  { type: "key", keys: "shift+Tab" },
];
const TASKS: [string, string] = ["enter-text", "click-button"];
const create = (plan: Plan) => async () =>
  new NoisyEnvironment(await createWebEnvironment({}), { scheduleFor: scheduleFor(plan) });

shareBrowserAcrossFile();

/**
 * The suites below run at once, each in environments of its own on the file's one browser (they
 * mostly wait on it); the tests inside each suite run one after the other, as the suite expects.
 */
function alongsideTheOthers(name: string, suite: () => void): void {
  describe(name, { concurrent: true }, () => {
    describe.sequential("one test after another", suite);
  });
}

for (const { name, plan } of PLANS) {
  alongsideTheOthers(`noisy conformance: ${name}`, () =>
    describeEnvironmentConformance({
      name: `noisy web (scheduled noise: ${name})`,
      create: create(plan),
      taskIds: TASKS,
      seeds: [1, 2],
      chooseAction: (_o: Observation, i: number) => SCRIPT[i % SCRIPT.length] as Action,
      invalidActions: [
        { type: "click", elementId: "99999" },
        { type: "click", x: 5000, y: 10 },
        { type: "move", direction: "left" },
        { type: "uci", move: "e2e4" },
        { type: "key", keys: "NoSuchKey" },
      ],
      steps: 4,
      timeoutMs: 240_000,
    }),
  );
}

alongsideTheOthers("the conformance schedules are live", () => {
  let env: NoisyEnvironment;
  beforeAll(async () => {
    env = await create([])();
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  }, 60_000);

  it("applies every planned event in the suites' episodes (none refused) and sees some recovered", {
    timeout: 240_000,
  }, async () => {
    for (const { name, plan, recovers } of PLANS) {
      for (const taskId of TASKS) {
        const where = `${name} on ${taskId}`;
        env.setSchedule(scheduleFor(plan)(taskId, 1));
        await env.reset({ taskId, seed: 1 });
        for (const action of SCRIPT) await env.step(action);
        const events = env.events();
        expect(events.map((e) => e.generator).sort(), where).toEqual(plan.map(([g]) => g).sort());
        expect(
          events.filter((e) => e.refused !== undefined),
          where,
        ).toEqual([]);
        if (recovers)
          expect(
            events.some((e) => e.recoveredAt !== null),
            where,
          ).toBe(true);
      }
    }
  });

  it("restoring something that is not a noisy snapshot is a typed user error", {
    timeout: 60_000,
  }, async () => {
    await env.reset({ taskId: TASKS[0], seed: 1 });
    const plain = { family: "web", taskId: TASKS[0], seed: 1, state: { url: "/" } };
    for (const bad of [plain, { nonsense: true }, null]) {
      const err = await env.restore(bad as never).catch((e: unknown) => e);
      expect(isRehearsalError(err) && err.category, JSON.stringify(bad)).toBe("user");
      expect((err as { code: string }).code).toBe("noise.snapshot_invalid");
    }
  });
});
