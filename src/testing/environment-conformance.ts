import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action, Environment, Observation } from "../core/index.ts";
import { canonicalJson, isRehearsalError, syncTwinOf } from "../core/index.ts";

/**
 * The environment conformance suite. Every Environment implementation runs it:
 *   describeEnvironmentConformance({ name: "frozenlake", create, taskIds, ... })
 */
export interface EnvironmentConformanceOptions {
  name: string;
  create: () => Promise<Environment>;
  /** At least two task ids (the leak test switches between them). */
  taskIds: [string, string, ...string[]];
  /** Two different seeds. */
  seeds: [number, number];
  /** A deterministic valid action for step `index` from `observation`. */
  chooseAction: (observation: Observation, index: number) => Action;
  /** Actions that cannot apply: each must give an observation with `error`. */
  invalidActions: Action[];
  /** How many steps the sequences play (default 4). */
  steps?: number;
  /** Drops fields that legitimately vary between runs (default: screenshot bytes). */
  normalize?: (observation: Observation) => unknown;
  /** Extra time for slow environments. */
  timeoutMs?: number;
}

/**
 * The snapshot round-trip contract: `restore(snapshot())` returns the observation of the saved
 * state, and the fingerprint, the observation and every later step are those of the live episode.
 * An observation's `error` is not state: it reports the action just tried (e.g. refused by a native
 * dialog held open), so the restored observation equals the last step's observation without it.
 */
function withoutActionError(o: Observation): Observation {
  const { error: _transient, ...state } = o;
  return state;
}

function defaultNormalize(o: Observation): unknown {
  const { screenshot, ...rest } = o;
  return screenshot ? { ...rest, screenshot: screenshot.sha256 } : rest;
}

export function describeEnvironmentConformance(options: EnvironmentConformanceOptions): void {
  const steps = options.steps ?? 4;
  const norm = (o: Observation) => canonicalJson((options.normalize ?? defaultNormalize)(o));
  const timeout = options.timeoutMs ?? 60_000;

  describe(`environment conformance: ${options.name}`, () => {
    let env: Environment;
    beforeAll(async () => {
      env = await options.create();
    }, timeout);
    afterAll(async () => {
      await env.close();
    }, timeout);

    /** Plays `count` steps from reset; returns observations (initial first), stopping at episode end. */
    async function play(
      taskId: string,
      seed: number,
      count: number,
    ): Promise<{ obs: string[]; actions: Action[] }> {
      let last = await env.reset({ taskId, seed });
      const obs = [norm(last)];
      const actions: Action[] = [];
      for (let i = 0; i < count; i++) {
        const action = options.chooseAction(last, i);
        actions.push(action);
        const r = await env.step(action);
        obs.push(norm(r.observation));
        last = r.observation;
        if (r.terminated || r.truncated) break;
      }
      return { obs, actions };
    }

    it(
      "declares its capabilities and lists tasks",
      () => {
        expect(typeof env.capabilities.snapshot).toBe("boolean");
        expect(typeof env.capabilities.replay).toBe("boolean");
        expect(typeof env.capabilities.deterministic).toBe("boolean");
        if (env.capabilities.snapshot) {
          expect(typeof env.snapshot).toBe("function");
          expect(typeof env.restore).toBe("function");
        }
        for (const id of options.taskIds) expect(env.suite.get(id).id).toBe(id);
      },
      timeout,
    );

    it(
      "the same seed gives the same observations",
      async () => {
        const [taskId] = options.taskIds;
        const a = await play(taskId, options.seeds[0], steps);
        const b = await play(taskId, options.seeds[0], steps);
        expect(b.obs).toEqual(a.obs);
      },
      timeout,
    );

    it(
      "step.sync, where present, steps exactly as step (results, invalid actions, and errors)",
      async () => {
        const stepSync = syncTwinOf(env.step);
        if (stepSync === undefined) return;
        const [taskId] = options.taskIds;
        for (const seed of options.seeds) {
          const byStep = await play(taskId, seed, steps);
          let last = await env.reset({ taskId, seed });
          const obs = [norm(last)];
          for (let i = 0; i < byStep.actions.length; i++) {
            const r = stepSync(options.chooseAction(last, i));
            obs.push(norm(r.observation));
            last = r.observation;
          }
          expect(obs).toEqual(byStep.obs);
        }
        for (const action of options.invalidActions) {
          await env.reset({ taskId, seed: options.seeds[0] });
          const viaStep = await env.step(action);
          await env.reset({ taskId, seed: options.seeds[0] });
          const viaSync = stepSync(action);
          expect(canonicalJson({ ...viaSync, observation: norm(viaSync.observation) })).toBe(
            canonicalJson({ ...viaStep, observation: norm(viaStep.observation) }),
          );
        }
        // After close, both refuse alike (a fresh environment: this suite's one stays open).
        const action = options.chooseAction(await env.reset({ taskId, seed: options.seeds[0] }), 0);
        const other = await options.create();
        await other.close();
        const asyncError = await other.step(action).catch((e: unknown) => e);
        let syncError: unknown;
        try {
          syncTwinOf(other.step)?.(action);
        } catch (e) {
          syncError = e;
        }
        expect(isRehearsalError(syncError)).toBe(true);
        expect((syncError as { code: string }).code).toBe((asyncError as { code: string }).code);
      },
      timeout,
    );

    it(
      "an unknown task id is a typed user error",
      async () => {
        const err = await env.reset({ taskId: "no-such-task-xyz", seed: 0 }).catch((e: unknown) => e);
        expect(isRehearsalError(err)).toBe(true);
        expect((err as { category: string }).category).toBe("user");
      },
      timeout,
    );

    it(
      "invalid actions give error observations, not exceptions",
      async () => {
        for (const action of options.invalidActions) {
          await env.reset({ taskId: options.taskIds[0], seed: options.seeds[0] });
          const r = await env.step(action);
          expect(r.observation.error, `action ${JSON.stringify(action)}`).toBeDefined();
          expect(r.observation.error?.code.length).toBeGreaterThan(0);
        }
      },
      timeout,
    );

    it(
      "no state leaks between episodes",
      async () => {
        const [first, second] = options.taskIds;
        const fresh = await options.create();
        let expected: string;
        try {
          expected = norm(await fresh.reset({ taskId: first, seed: options.seeds[1] }));
          expected += await fresh.fingerprint();
        } finally {
          await fresh.close();
        }
        await play(first, options.seeds[0], steps);
        await play(second, options.seeds[1], steps);
        const again =
          norm(await env.reset({ taskId: first, seed: options.seeds[1] })) + (await env.fingerprint());
        expect(again).toBe(expected);
      },
      timeout,
    );

    it(
      "snapshot and restore round-trip exactly (when declared)",
      async () => {
        if (!env.capabilities.snapshot || !env.snapshot || !env.restore) return;
        const taskId = options.taskIds[0];
        let last = await env.reset({ taskId, seed: options.seeds[0] });
        const half = Math.max(1, Math.floor(steps / 2));
        for (let i = 0; i < half; i++) last = (await env.step(options.chooseAction(last, i))).observation;
        const snap = await env.snapshot();
        const printAt = await env.fingerprint();
        const obsAt = norm(withoutActionError(last));
        const continuation: string[] = [];
        let cur = last;
        for (let i = half; i < steps; i++) {
          const r = await env.step(options.chooseAction(cur, i));
          continuation.push(norm(r.observation));
          cur = r.observation;
          if (r.terminated || r.truncated) break;
        }
        // Restore into a different episode to prove the snapshot carries everything.
        await env.reset({ taskId: options.taskIds[1], seed: options.seeds[1] });
        const restored = await env.restore(JSON.parse(JSON.stringify(snap)));
        // The state's observation: the last step's, less the error of the action that step tried.
        expect(norm(restored)).toBe(obsAt);
        expect(await env.fingerprint()).toBe(printAt);
        cur = restored;
        const again: string[] = [];
        for (let i = half; i < half + continuation.length; i++) {
          const r = await env.step(options.chooseAction(cur, i));
          again.push(norm(r.observation));
          cur = r.observation;
        }
        expect(again).toEqual(continuation);
      },
      timeout,
    );

    it(
      "replaying an action prefix reaches the same state (when declared)",
      async () => {
        if (!env.capabilities.replay) return;
        const taskId = options.taskIds[0];
        const { actions } = await play(taskId, options.seeds[1], steps);
        const print = await env.fingerprint();
        await env.reset({ taskId: options.taskIds[1], seed: options.seeds[0] });
        await env.reset({ taskId, seed: options.seeds[1] });
        for (const a of actions) await env.step(a);
        expect(await env.fingerprint()).toBe(print);
      },
      timeout,
    );

    it(
      "evaluate() returns a verifier result",
      async () => {
        await env.reset({ taskId: options.taskIds[0], seed: options.seeds[0] });
        const r = await env.evaluate();
        expect(typeof r.reward).toBe("number");
        expect(typeof r.success).toBe("boolean");
        expect(typeof r.reason).toBe("string");
      },
      timeout,
    );

    it(
      "close() is idempotent",
      async () => {
        const e = await options.create();
        await e.reset({ taskId: options.taskIds[0], seed: options.seeds[0] });
        await e.close();
        await e.close();
      },
      timeout,
    );
  });
}
