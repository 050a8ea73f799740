import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRehearsalError } from "../../../src/core/index.ts";
import { createWebEnvironment, createWebSuite, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { json, runMain } from "../../cli/run-cli.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";
import {
  FIXTURE_MINIWOB_LAYOUT,
  FIXTURE_MINIWOB_PAGES,
  MINIWOB_LAYOUT_TASKS,
} from "./miniwob-layout-helpers.ts";

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a rejection");
}

shareBrowserAcrossFile();

describe("a MiniWoB++-layout folder (pages in miniwob/, shared core/ and common/ beside it)", () => {
  it("serves the folder's parent so ../core and ../common resolve; tasksRoot overrides it", () => {
    const suite = createWebSuite({ dir: FIXTURE_MINIWOB_PAGES });
    expect(suite.root).toBe(FIXTURE_MINIWOB_LAYOUT);
    expect(suite.tasksDir).toBe(FIXTURE_MINIWOB_PAGES);
    expect(suite.list().map((t) => t.id)).toEqual([...MINIWOB_LAYOUT_TASKS]);
    expect(suite.entryPath("click-button")).toBe("/suites/miniwob/miniwob/click-button.html");

    const flat = createWebSuite({ dir: FIXTURE_MINIWOB_PAGES, root: FIXTURE_MINIWOB_PAGES });
    expect(flat.root).toBe(FIXTURE_MINIWOB_PAGES);
    expect(flat.entryPath("click-button")).toBe("/suites/miniwob/click-button.html");

    let err: unknown;
    try {
      createWebSuite({ dir: FIXTURE_MINIWOB_PAGES, root: join(FIXTURE_MINIWOB_LAYOUT, "common") });
    } catch (e) {
      err = e;
    }
    expect(isRehearsalError(err) && err.code === "task.root_invalid" && err.category === "user").toBe(true);
  });

  describe("pages run unmodified", () => {
    let env: WebEnvironment;
    beforeAll(async () => {
      env = await createWebEnvironment({
        tasksDir: FIXTURE_MINIWOB_PAGES,
        observation: { screenshot: false },
      });
    });
    afterAll(async () => {
      await env.close();
    });

    it("every page starts an episode that is still running after a wait (an Infinity timer never fires)", async () => {
      for (const taskId of MINIWOB_LAYOUT_TASKS) {
        const obs = await env.reset({ taskId, seed: 1 });
        expect(obs.instruction, taskId).toMatch(/\S/);
        // The fixture's core arms setTimeout(end, Infinity); a browser alone fires it after ~1 ms.
        const waited = await env.step({ type: "wait", ms: 400 });
        expect(waited.terminated, `${taskId} ended by itself: ${JSON.stringify(waited.info)}`).toBe(false);
        expect((await env.evaluate()).metrics.finished, taskId).toBe(0);
      }
    });

    it("a delayed widget (menu 300 ms after typing) can be used by a scripted path", async () => {
      const obs = await env.reset({ taskId: "use-autocomplete", seed: 4 });
      const m = /starts with "(\w\w)" and ends with "(\w\w)"/.exec(obs.instruction ?? "");
      expect(m, obs.instruction).not.toBeNull();
      const field = /\[(\d+)\] textbox/.exec(obs.axtree ?? "")?.[1];
      expect(field, obs.axtree).toBeDefined();
      await env.step({ type: "type", elementId: field as string, text: m?.[1] as string });
      const later = await env.step({ type: "wait", ms: 700 });
      const option = [...(later.observation.axtree ?? "").matchAll(/\[(\d+)\] option "(\w+)"/g)].find((o) =>
        o[2]?.endsWith(m?.[2] as string),
      );
      expect(option, later.observation.axtree).toBeDefined();
      await env.step({ type: "click", elementId: option?.[1] as string });
      const submitted = await env.step({
        type: "click",
        elementId: /\[(\d+)\] button "Submit"/.exec(later.observation.axtree ?? "")?.[1] as string,
      });
      expect(submitted).toMatchObject({ terminated: true, reward: 1 });
    });
  });

  it("runs through --tasks-dir with the oracle (every page solved) and the heuristic (episodes score)", async () => {
    const store = mkdtempSync(join(tmpdir(), "rh-mwl-"));
    try {
      const common = ["--tasks-dir", FIXTURE_MINIWOB_PAGES, "--episodes", "1", "--seed", "5"];
      const oracle = await runMain([
        "--json",
        "run",
        "--env",
        "web",
        ...common,
        "--policy",
        "oracle",
        "--store",
        store,
      ]);
      expect(oracle.code, oracle.stderr).toBe(0);
      expect(json<{ summary: { successRate: number; episodes: number } }>(oracle).summary).toMatchObject({
        successRate: 1,
        episodes: MINIWOB_LAYOUT_TASKS.length,
      });
      const heuristic = await runMain([
        "--json",
        "run",
        "--env",
        "web",
        ...common,
        "--policy",
        "heuristic",
        "--store",
        store,
      ]);
      expect(heuristic.code, heuristic.stderr).toBe(0);
      const summary = json<{ summary: { episodes: number; successRate: number; infraFailures: unknown } }>(
        heuristic,
      ).summary;
      expect(summary.episodes).toBe(MINIWOB_LAYOUT_TASKS.length);
      expect(JSON.stringify(summary.infraFailures)).toMatch(/"count":0/);
      // click-button and enter-text are within any heuristic's reach.
      expect(summary.successRate).toBeGreaterThan(0);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  }, 600_000);

  describe("pages that do not start an episode", () => {
    let env: WebEnvironment;
    beforeAll(async () => {
      env = await createWebEnvironment({
        tasksDir: join(FIXTURE_MINIWOB_LAYOUT, "broken"),
        observation: { screenshot: false },
      });
    });
    afterAll(async () => {
      await env.close();
    });

    const invalid = async (taskId: string): Promise<Error> => {
      const err = await rejection(env.reset({ taskId, seed: 0 }));
      expect(isRehearsalError(err) && err.code === "env.task_page_invalid", String(err)).toBe(true);
      expect(isRehearsalError(err) && err.category).toBe("environment");
      return err;
    };

    it("a script that is missing (404) names the file", async () => {
      const err = await invalid("missing-script");
      expect(err.message).toMatch(/missing file \/suites\/broken\/common\/no-such-helper\.js \(HTTP 404\)/);
    });

    it("an uncaught script error names the error and the page", async () => {
      const err = await invalid("throws");
      expect(err.message).toMatch(/uncaught script error \(.*undefinedHelper.*\)/);
    });

    it("a page without genProblem says so", async () => {
      expect((await invalid("no-genproblem")).message).toMatch(/no genProblem\(\) function/);
    });
  });

  it("a served root below the shared folders: the error names the file and the tasksRoot fix", async () => {
    const pages = join(FIXTURE_MINIWOB_LAYOUT, "miniwob");
    const env = await createWebEnvironment({
      tasksDir: pages,
      tasksRoot: pages,
      observation: { screenshot: false },
    });
    try {
      const err = await rejection(env.reset({ taskId: "click-button", seed: 0 }));
      expect(isRehearsalError(err) && err.code === "env.task_page_invalid").toBe(true);
      expect(err.message).toMatch(/missing file \/suites\/common\/ui_utils\.js \(HTTP 404\)/);
      expect(err.message).toMatch(/outside the served folder \/suites\/miniwob\/.*--tasks-root/);
      expect(err.message).toMatch(/ui_utils is not defined/);
    } finally {
      await env.close();
    }
  });
});

describe("--tasks-root", () => {
  it("lists the suite served from the given root and rejects a root that does not hold --tasks-dir", async () => {
    const ok = await runMain([
      "--json",
      "tasks",
      "list",
      "--tasks-dir",
      FIXTURE_MINIWOB_PAGES,
      "--tasks-root",
      FIXTURE_MINIWOB_LAYOUT,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(json<{ tasks: { id: string }[] }>(ok).tasks.map((t) => t.id)).toEqual([...MINIWOB_LAYOUT_TASKS]);
    const bad = await runMain([
      "tasks",
      "list",
      "--tasks-dir",
      FIXTURE_MINIWOB_PAGES,
      "--tasks-root",
      join(FIXTURE_MINIWOB_LAYOUT, "core"),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/does not hold the tasks directory/);
  });
});
