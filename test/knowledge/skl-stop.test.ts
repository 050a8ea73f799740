import { describe, expect, it } from "vitest";
import type { Environment } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment, createFrozenLakeSuite } from "../../src/envs/frozenlake/index.ts";
import {
  createStatisticalWriter,
  type EpisodeRecorder,
  memoryRecorder,
  runSklLoop,
  unlessStopped,
} from "../../src/knowledge/index.ts";

/** The environment, aborting `controller` during its `abortAtStep`-th step (counted over the run). */
function abortingEnvironment(
  env: Environment,
  controller: AbortController,
  abortAtStep: number,
): Environment {
  let steps = 0;
  return new Proxy(env, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== "step") return typeof value === "function" ? value.bind(target) : value;
      return async (...args: Parameters<Environment["step"]>) => {
        if (++steps === abortAtStep) controller.abort("SIGINT");
        return target.step(...args);
      };
    },
  });
}

function setup(abortAtStep: number) {
  const suite = createFrozenLakeSuite({
    name: "skl-stop",
    standard: [],
    randomMaps: { size: 5, count: 6, heldoutCount: 3 },
  });
  const controller = new AbortController();
  const env = abortingEnvironment(
    createFrozenLakeEnvironment({ horizon: 20 }, { suite }),
    controller,
    abortAtStep,
  );
  const tasks = suite.list();
  const recorder: EpisodeRecorder = { ...memoryRecorder("stop"), signal: controller.signal };
  const options = {
    method: "stateful-bootstrap" as const,
    env,
    trainTasks: tasks.filter((t) => t.split === "train"),
    testTasks: tasks.filter((t) => t.split === "heldout"),
    iterations: 3,
    episodesPerMap: 1,
    evalEpisodesPerMap: 1,
    maxSteps: 20,
    writer: createStatisticalWriter({ deathPenalty: 1 }),
    budget: { n: 3, hMc: 15, hTd: 1, scope: "all" as const },
    temperature: 0.1,
    optimisticPrior: 0.5,
    bootstrapOn: "failed" as const,
    generalKeys: [],
    seed: "stop",
    recorder,
  };
  return { options, recorder, controller };
}

describe("SKL loops under a stop request", () => {
  it("ends the episode in flight as aborted, drops its iteration and starts nothing after it", async () => {
    // A full run first: how many steps the first iteration takes, and its metrics.
    const full = setup(Number.POSITIVE_INFINITY);
    const complete = await runSklLoop(full.options);
    expect(complete.interrupted).toBe(false);
    expect(complete.iterations).toHaveLength(3);
    const firstIteration = full.recorder.store
      .listTrajectories(full.recorder.runId)
      .filter((t) => String(t.meta.sklEpisode).includes(":i0:"))
      .reduce((a, t) => a + t.stepCount, 0);

    // Abort during the second step of the second iteration.
    const { options, recorder } = setup(firstIteration + 2);
    const result = await runSklLoop(options);
    expect(result.interrupted).toBe(true);
    expect(result.iterations).toEqual(complete.iterations.slice(0, 1));
    const trajectories = recorder.store.listTrajectories(recorder.runId);
    // The first iteration's 6 episodes complete, then the episode in flight ends aborted (never infra_failed).
    const byStatus = (status: string) =>
      trajectories.filter((t) => t.status === status).map((t) => String(t.meta.sklEpisode));
    expect(byStatus("complete")).toHaveLength(6);
    expect(byStatus("complete").every((id) => id.includes(":i0:"))).toBe(true);
    expect(byStatus("aborted")).toEqual(["stateful-bootstrap:train:random-5-0:i1:e0"]);
    expect(trajectories).toHaveLength(7);
  });

  it("unlessStopped runs a unit of work only while no stop was requested, and turns the stop's failure into undefined", async () => {
    const controller = new AbortController();
    const recorder: EpisodeRecorder = { ...memoryRecorder("unit"), signal: controller.signal };
    expect(await unlessStopped(recorder, async () => 1)).toBe(1);
    await expect(
      unlessStopped(recorder, async () => {
        throw new Error("a real failure");
      }),
    ).rejects.toThrow("a real failure");
    expect(
      await unlessStopped(recorder, async () => {
        controller.abort("SIGTERM");
        controller.signal.throwIfAborted();
        return 2;
      }),
    ).toBeUndefined();
    let ran = false;
    expect(
      await unlessStopped(recorder, async () => {
        ran = true;
      }),
    ).toBeUndefined();
    expect(ran).toBe(false);
  });
});
