import { describe, expect, it } from "vitest";
import {
  type Action,
  createRuntime,
  type Environment,
  EnvironmentError,
  type Policy,
  ProviderError,
} from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createOraclePolicy } from "../../src/policies/oracle-policy.ts";
import { createRandomPolicy } from "../../src/policies/random-policy.ts";
import { createScriptedPolicy } from "../../src/policies/scripted-policy.ts";
import { episodeSeed, runEpisode, runEpisodes } from "../../src/rollout/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { flakyPolicy as flaky } from "../fixtures/flaky-policy.ts";

const runtime = createRuntime({ seed: "t" });
const right: Action = { type: "move", direction: "right" };
const down: Action = { type: "move", direction: "down" };

function setup() {
  const store = createMemoryStore();
  store.createRun({ id: "run_1", kind: "run", seed: "t", config: {}, codeVersion: "test", createdAtMs: 0 });
  const env = createFrozenLakeEnvironment({ slippery: false });
  return { store, env, task: env.suite.get("4x4") };
}

describe("runEpisode", () => {
  it("records every step, the outcome and the raw text; the oracle solves a non-slippery map", async () => {
    const { store, env, task } = setup();
    const r = await runEpisode(
      { env, policy: createOraclePolicy(), runtime, store },
      {
        runId: "run_1",
        trajectoryId: "traj_1",
        task,
        episodeIndex: 0,
        seed: 1,
        maxSteps: 20,
        temperature: 1,
      },
    );
    expect(r.status).toBe("complete");
    expect(r.outcome?.success).toBe(true);
    const t = store.getTrajectory("traj_1");
    expect(t?.status).toBe("complete");
    expect(t?.steps).toHaveLength(6);
    expect(t?.steps.at(-1)?.terminated).toBe(true);
    expect(t?.steps.at(-1)?.reward).toBe(1);
    expect(t?.steps[0]?.raw).toContain("move");
    expect(t?.finalObservation?.text).toContain("P");
  });

  it("a policy output that does not parse is recorded and counted, and the environment is not stepped", async () => {
    const { store, env, task } = setup();
    const r = await runEpisode(
      { env, policy: flaky, runtime, store },
      { runId: "run_1", trajectoryId: "traj_2", task, episodeIndex: 0, seed: 1, maxSteps: 6, temperature: 1 },
    );
    expect(r.parseErrors).toBe(2); // steps 1 and 3; step 4 walks into the hole at (3, 0)
    const t = store.getTrajectory("traj_2");
    const bad = t?.steps.filter((s) => s.action === null) ?? [];
    expect(bad).toHaveLength(2);
    expect(bad[0]?.raw).toBe("I think I should go down");
    expect(bad[0]?.parseError?.code).toBe("parse.no_action");
    // Parse failures leave the observation unchanged: the step after one sees the same grid.
    expect(t?.steps[2]?.observation.text).toBe(t?.steps[1]?.observation.text);
  });

  it("an environment failure ends the episode as infra_failed, never as a reward", async () => {
    const { store, env, task } = setup();
    let steps = 0;
    const crashing: Environment = {
      family: env.family,
      capabilities: env.capabilities,
      suite: env.suite,
      reset: (o) => env.reset(o),
      step: async (a) => {
        steps += 1;
        if (steps === 3) throw new EnvironmentError("env.crashed", "the simulator died");
        return env.step(a);
      },
      evaluate: () => env.evaluate(),
      fingerprint: () => env.fingerprint(),
      close: () => env.close(),
    };
    const r = await runEpisode(
      { env: crashing, policy: createScriptedPolicy([right, right, right, down]), runtime, store },
      {
        runId: "run_1",
        trajectoryId: "traj_3",
        task,
        episodeIndex: 0,
        seed: 1,
        maxSteps: 10,
        temperature: 1,
      },
    );
    expect(r.status).toBe("infra_failed");
    expect(r.outcome).toBeUndefined();
    const t = store.getTrajectory("traj_3");
    expect(t?.status).toBe("infra_failed");
    expect(t?.outcome).toBeUndefined();
    expect(t?.error?.code).toBe("env.crashed");
    expect(t?.steps).toHaveLength(2);
  });

  it("a provider failure aborts the episode, keeps what was recorded, and is rethrown", async () => {
    const { store, env, task } = setup();
    const down2: Policy = {
      name: "down",
      async propose(ctx) {
        if (ctx.stepIndex === 2) throw new ProviderError("provider.http_503", "server overloaded");
        return { candidates: [{ action: down, raw: "down" }] };
      },
    };
    await expect(
      runEpisode(
        { env, policy: down2, runtime, store },
        {
          runId: "run_1",
          trajectoryId: "traj_4",
          task,
          episodeIndex: 0,
          seed: 1,
          maxSteps: 10,
          temperature: 1,
        },
      ),
    ).rejects.toThrow(ProviderError);
    const t = store.getTrajectory("traj_4");
    expect(t?.status).toBe("aborted");
    expect(t?.steps).toHaveLength(2);
    expect(t?.error?.category).toBe("provider");
  });
});

describe("runEpisodes", () => {
  it("derives stable episode seeds and is reproducible", async () => {
    expect(episodeSeed("s", "4x4", 0)).toBe(episodeSeed("s", "4x4", 0));
    expect(episodeSeed("s", "4x4", 0)).not.toBe(episodeSeed("s", "4x4", 1));
    const play = async () => {
      const env = createFrozenLakeEnvironment({});
      const tasks = [env.suite.get("4x4"), env.suite.get("8x8")];
      const { results, summary } = await runEpisodes(
        { env, policy: createRandomPolicy(), runtime: createRuntime({ seed: "x" }) },
        { runId: "r", tasks, episodes: 10, seed: "x", temperature: 1 },
      );
      return { steps: results.map((r) => r.steps), summary };
    };
    const a = await play();
    const b = await play();
    expect(b).toEqual(a);
    expect(a.summary.episodes).toBe(20);
    expect(a.summary.perTask.map((t) => t.taskId)).toEqual(["4x4", "8x8"]);
  });

  it("stops early on abort, keeping finished episodes", async () => {
    const env = createFrozenLakeEnvironment({});
    const controller = new AbortController();
    const { results } = await runEpisodes(
      {
        env,
        policy: createRandomPolicy(),
        runtime,
        signal: controller.signal,
        onEpisode: (_r, done) => done === 3 && controller.abort(),
      },
      { runId: "r", tasks: [env.suite.get("4x4")], episodes: 10, seed: "x", temperature: 1 },
    );
    expect(results).toHaveLength(3);
  });
});
