import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRehearsalError } from "../../../src/core/index.ts";
import { createWebEnvironment, createWebSuite, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { FIXTURE_BAD_MANIFEST, FIXTURE_PAGES, idsWhere } from "./helpers.ts";

describe("web suites", () => {
  it("loads the built-in suite from task.json manifests", () => {
    const suite = createWebSuite();
    expect(suite.name).toBe("builtin");
    const ids = suite.list().map((t) => t.id);
    expect(ids).toEqual(expect.arrayContaining(["click-button", "enter-text"]));
    expect([...ids].sort()).toEqual(ids);
    const t = suite.get("click-button");
    expect(t).toMatchObject({
      family: "web",
      tier: "short",
      split: "train",
      maxSteps: 5,
      oracle: { kind: "page" },
    });
    expect(suite.entryPath("click-button")).toBe("/tasks/click-button/index.html");
  });

  it("loads a MiniWoB-style directory: each .html file is a task", () => {
    const suite = createWebSuite({ dir: FIXTURE_PAGES });
    expect(suite.name).toBe("pages");
    expect(suite.list().map((t) => t.id)).toEqual([
      "miniwob-click",
      "network-fetch",
      "test-nondeterministic",
      "widgets",
    ]);
    expect(suite.get("miniwob-click")).toMatchObject({ split: "heldout", maxSteps: 3 });
    expect(suite.get("widgets")).toMatchObject({ split: "train", maxSteps: 15 });
    expect(suite.entryPath("widgets")).toBe("/suites/pages/widgets.html");
  });

  it("rejects invalid manifests and unknown ids with user errors", () => {
    let err: unknown;
    try {
      createWebSuite({ dir: FIXTURE_BAD_MANIFEST });
    } catch (e) {
      err = e;
    }
    expect(isRehearsalError(err) && err.category === "user" && err.code === "task.manifest_invalid").toBe(
      true,
    );
    expect(String((err as Error).message)).toMatch(/tier|colour/);
    expect(() => createWebSuite().get("nope")).toThrow(/known: .*click-button/);
    expect(() => createWebSuite({ dir: "/no/such/dir" })).toThrow(/does not exist/);
  });

  describe("a MiniWoB page from --tasks-dir", () => {
    let env: WebEnvironment;
    beforeAll(async () => {
      env = await createWebEnvironment({ tasksDir: FIXTURE_PAGES });
    });
    afterAll(async () => {
      await env.close();
    });

    it("runs with core/ falling back to ours and common/ served from the directory", async () => {
      for (const seed of [0, 1, 2]) {
        const obs = await env.reset({ taskId: "miniwob-click", seed });
        const m = /Click the button labelled "(Item \d)"/.exec(obs.instruction ?? "");
        expect(m, obs.text).not.toBeNull();
        expect(obs.url).toBe("/suites/pages/miniwob-click.html");
        expect(obs.title).toBe("Click Test Task");
        expect(obs.screenshot?.bytes?.length).toBeGreaterThan(100);
        const [id] = idsWhere(obs, new RegExp(`button "${m?.[1]}"`));
        const r = await env.step({ type: "click", elementId: id as string });
        expect(r.terminated).toBe(true);
        expect(r.reward).toBe(1);
        expect(await env.evaluate()).toMatchObject({ success: true, reward: 1 });
      }
    });

    it("a wrong click gives MiniWoB's -1, reported as reward 0 with the raw value kept", async () => {
      const obs = await env.reset({ taskId: "miniwob-click", seed: 0 });
      const target = /"(Item \d)"/.exec(obs.instruction ?? "")?.[1];
      const wrong = idsWhere(obs, /button "Item/).find(
        (id) => !obs.axtree?.includes(`[${id}] button "${target}"`),
      );
      const r = await env.step({ type: "click", elementId: wrong as string });
      expect(r).toMatchObject({ terminated: true, reward: 0 });
      const v = await env.evaluate();
      expect(v).toMatchObject({ reward: 0, success: false });
      expect(v.metrics.rawReward).toBe(-1);
    });
  });
});
