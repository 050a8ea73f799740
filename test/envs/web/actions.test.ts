import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Observation } from "../../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { FIXTURE_PAGES, idWhere } from "./helpers.ts";

describe("web actions", () => {
  let env: WebEnvironment;
  let obs: Observation;
  beforeAll(async () => {
    env = await createWebEnvironment({ tasksDir: FIXTURE_PAGES, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });
  const reset = async () => {
    obs = await env.reset({ taskId: "widgets", seed: 0 });
    return obs;
  };
  const log = (o: Observation) => /text "([^"]*;)"/.exec(o.axtree ?? "")?.[1] ?? "";

  it("reports actions that cannot apply as observation errors", async () => {
    await reset();
    const button = idWhere(obs, /button "Double me"/);
    const name = idWhere(obs, /textbox "Name"/);
    const cases: Array<[unknown, string]> = [
      [{ type: "click", elementId: "424242" }, "unknown_element"],
      [{ type: "click", x: 801, y: 5 }, "out_of_viewport"],
      [{ type: "hover", x: -1, y: 5 }, "out_of_viewport"],
      [{ type: "select", elementId: button, value: "r" }, "not_a_select"],
      [{ type: "select", elementId: idWhere(obs, /combobox "Color"/), value: "purple" }, "invalid_option"],
      [{ type: "type", elementId: button, text: "x" }, "not_editable"],
      [{ type: "move", direction: "up" }, "unsupported_action"],
      [{ type: "uci", move: "e2e4" }, "unsupported_action"],
      [{ type: "key", keys: "Hyper" }, "invalid_key"],
      [{ type: "click" }, "invalid_action"],
      [{ type: "teleport" }, "invalid_action"],
    ];
    for (const [action, code] of cases) {
      const r = await env.step(action as never);
      expect(r.observation.error?.code, JSON.stringify(action)).toBe(code);
      expect(r.terminated).toBe(false);
    }
    // Failed actions leave the page as it was.
    const after = await env.step({ type: "wait", ms: 0 });
    expect(after.observation.axtree).toContain(`[${name}] textbox "Name" value=""`);
  });

  it("types, edits with key combos and selects", async () => {
    await reset();
    const name = idWhere(obs, /textbox "Name"/);
    let r = await env.step({ type: "type", elementId: name, text: "hello world" });
    expect(r.observation.axtree).toContain(`textbox "Name" value="hello world" focused`);
    expect(r.observation.focused).toBe(`[${name}] textbox "Name" value="hello world" focused`);
    r = await env.step({ type: "key", keys: "ctrl+a" });
    r = await env.step({ type: "key", keys: "Backspace" });
    expect(r.observation.axtree).toContain(`textbox "Name" value="" focused`);
    r = await env.step({ type: "select", elementId: idWhere(obs, /combobox "Color"/), value: "green" });
    expect(r.observation.axtree).toContain(`combobox "Color" value="green"`);
    expect(log(r.observation)).toContain("color=g;");
    r = await env.step({ type: "key", keys: "Escape" });
    expect(r.observation.error).toBeUndefined();
  });

  it("double-clicks, right-clicks, hovers and drags", async () => {
    await reset();
    await env.step({ type: "double_click", elementId: idWhere(obs, /button "Double me"/) });
    await env.step({ type: "right_click", elementId: idWhere(obs, /"Context"/) });
    await env.step({ type: "hover", elementId: idWhere(obs, /div "Hover"/) });
    const r = await env.step({
      type: "drag",
      from: { elementId: idWhere(obs, /"Source"/) },
      to: { elementId: idWhere(obs, /"Target"/) },
    });
    expect(log(r.observation)).toBe("dbl;ctx;hover;dropped;");
  });

  it("scrolls, and element-id clicks bring elements into view", async () => {
    await reset();
    let r = await env.step({ type: "scroll", direction: "down", amount: 300 });
    expect(r.observation.instruction).toBe("scrollY=300");
    r = await env.step({ type: "scroll", direction: "up" });
    expect(r.observation.instruction).toBe("scrollY=100");
    r = await env.step({ type: "click", elementId: idWhere(obs, /button "Bottom"/) });
    expect(log(r.observation)).toBe("bottom clicked;");
  });

  it("done and fail end the episode; later steps say episode_ended", async () => {
    await reset();
    let r = await env.step({ type: "done" });
    expect(r.terminated).toBe(true);
    expect(r.reward).toBe(0);
    r = await env.step({ type: "click", x: 10, y: 10 });
    expect(r.observation.error?.code).toBe("episode_ended");
    const verdict = await env.evaluate();
    expect(verdict).toMatchObject({ reward: 0, success: false, reason: "episode not finished" });
    await reset();
    r = await env.step({ type: "fail", reason: "stuck" });
    expect(r.terminated).toBe(true);
  });
});
