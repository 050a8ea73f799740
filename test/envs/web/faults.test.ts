import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, isRehearsalError } from "../../../src/core/index.ts";
import { BrowserPool, createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { createOraclePolicy } from "../../../src/policies/oracle-policy.ts";
import { runEpisodes } from "../../../src/rollout/index.ts";
import { spawnCli, withStore } from "../../cli/run-cli.ts";
import { FIXTURE_FAULTS, idWhere } from "./helpers.ts";

/** Small deadlines: a stuck page is detected within about 2 × 1 s + a 2 s probe. */
const FAST = {
  tasksDir: FIXTURE_FAULTS,
  actionTimeoutMs: 1_000,
  observation: { screenshot: false },
} as const;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  return isRehearsalError(e) ? e.code : `not a typed error: ${String(e)}`;
}

/**
 * The two parts below run at once (both mostly wait out deadlines: the environment's in this
 * process, the CLI's in its child); the tests inside each run one after the other.
 */
function alongsideTheOther(name: string, suite: () => void): void {
  describe(name, { concurrent: true }, () => {
    describe.sequential("one test after another", suite);
  });
}

alongsideTheOther("web environment faults: pages that hang, misreport or never start", () => {
  let pool: BrowserPool;
  let env: WebEnvironment;
  beforeAll(async () => {
    pool = new BrowserPool();
    env = await createWebEnvironment(FAST, { pool });
  });
  afterAll(async () => {
    await env.close();
    await pool.close();
  });

  it("a click handler that never returns: each episode infra_failed (env.page_unresponsive) in bounded time, the run goes on", async () => {
    const runtime = createRuntime({ seed: "faults" });
    const task = env.suite.get("hang-click");
    const started = Date.now();
    const { results, summary } = await runEpisodes(
      { env, policy: createOraclePolicy(), runtime },
      { runId: "faults", tasks: [task], episodes: 2, seed: "1", temperature: 0 },
    );
    const elapsed = Date.now() - started;
    expect(results.map((r) => r.status)).toEqual(["infra_failed", "infra_failed"]);
    expect(results.map((r) => r.error?.code)).toEqual(["env.page_unresponsive", "env.page_unresponsive"]);
    expect(results[0]?.error?.category).toBe("environment");
    expect(results[0]?.error?.message).toMatch(/click action.*stopped answering|stopped answering.*click/);
    expect(summary.infraFailed).toBe(2);
    // Two episodes, each: deadline 2 s + probe 2 s + discarding the context; far from "for ever".
    expect(elapsed).toBeLessThan(40_000);
    // The stuck renderer went with its context; the browser itself lives on (no relaunch needed).
    expect(pool.contextCount()).toBe(0);
    expect(pool.launches).toBe(1);
  });

  it("a keydown handler that never returns is typed the same; later calls stay typed; reset recovers", async () => {
    await env.reset({ taskId: "hang-key", seed: 0 });
    expect(await codeOf(env.step({ type: "key", keys: "Enter" }))).toBe("env.page_unresponsive");
    expect(await codeOf(env.fingerprint())).toBe("env.page_unresponsive");
    expect(await codeOf(env.step({ type: "wait", ms: 0 }))).toBe("env.page_unresponsive");
    const obs = await env.reset({ taskId: "reward-five", seed: 0 });
    expect(obs.instruction).toBe("Click the button.");
  });

  it("a page reporting reward 5 is env.reward_out_of_range with the raw value, never a reward", async () => {
    const obs = await env.reset({ taskId: "reward-five", seed: 0 });
    const err = await env.step({ type: "click", elementId: idWhere(obs, /button "Finish"/) }).catch((e) => e);
    expect(isRehearsalError(err) && err.code).toBe("env.reward_out_of_range");
    expect(isRehearsalError(err) && err.category).toBe("environment");
    expect(String(err.message)).toMatch(/reward 5\b/);
    expect(isRehearsalError(err) && err.details.rawReward).toBe(5);
    expect(await codeOf(env.evaluate())).toBe("env.reward_out_of_range");

    const runtime = createRuntime({ seed: "faults" });
    const { results } = await runEpisodes(
      { env, policy: createOraclePolicy(), runtime },
      { runId: "faults", tasks: [env.suite.get("reward-five")], episodes: 1, seed: "1", temperature: 0 },
    );
    expect(results[0]).toMatchObject({ status: "infra_failed", error: { code: "env.reward_out_of_range" } });
    expect(results[0]?.outcome).toBeUndefined();
    expect(results[0]?.error?.message).toMatch(/reward 5\b/);
  });

  it.each([
    ["no-genproblem", /no genProblem\(\)/],
    ["empty-instruction", /empty instruction/],
    ["load-error", /uncaught script error \(.*undefinedHelper.*load-error\.html:\d+/],
    ["missing-script", /missing file .*helpers-that-do-not-exist\.js \(HTTP 404\)/],
  ])("%s is not a valid task: env.task_page_invalid naming what failed", async (taskId, why) => {
    const err = await env.reset({ taskId, seed: 0 }).catch((e: unknown) => e);
    expect(isRehearsalError(err) && err.code).toBe("env.task_page_invalid");
    expect(isRehearsalError(err) && err.category).toBe("environment");
    expect(String((err as Error).message)).toMatch(why);
    expect(String((err as Error).message)).toContain(taskId);
  });
});

alongsideTheOther("the CLI on a page whose click handler never returns", () => {
  const dir = mkdtempSync(join(tmpdir(), "rehearsal-faults-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("records both episodes infra_failed and exits", async ({ expect, onTestFinished }) => {
    const config = join(dir, "run.json");
    writeFileSync(
      config,
      JSON.stringify({ envOptions: { actionTimeoutMs: 1_000, observation: { screenshot: false } } }),
    );
    const started = Date.now();
    const cli = await spawnCli([
      "--json",
      "run",
      "-c",
      config,
      "--env",
      "web",
      "--tasks-dir",
      FIXTURE_FAULTS,
      "--tasks",
      "hang-click",
      "--policy",
      "oracle",
      "--episodes",
      "2",
      "--store",
      join(dir, "store"),
    ]);
    onTestFinished(() => {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill("SIGKILL");
    });
    const r = await cli.done;
    // It ended by itself (not by a signal), with an exit status.
    expect(r.signal, r.stderr).toBeNull();
    expect(r.code, r.stderr).not.toBe(-1);
    expect(Date.now() - started).toBeLessThan(60_000);
    // Every episode infra-failed: the run is failed with the environment's exit code, and the
    // stored summary still counts both episodes.
    expect(r.code, r.stderr).toBe(3);
    const out = JSON.parse(r.stdout) as { error: { category: string } };
    expect(out.error.category).toBe("environment");
    const [run] = withStore(join(dir, "store"), (s) => s.listRuns());
    expect(run?.status).toBe("failed");
    expect(run?.summary).toMatchObject({ episodes: 2, infraFailed: 2 });
  }, 90_000);
});
