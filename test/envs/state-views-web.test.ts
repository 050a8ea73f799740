import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Observation } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment, webStateViewer } from "../../src/envs/web/index.ts";
import { checkRoundTrip } from "./state-views-check.ts";
import { builtinManifests } from "./web-tasks/helpers.ts";

// Real Chromium on built-in tasks: every observation of an oracle run reads into a state and renders back.
const TASKS = builtinManifests().map((m) => m.id);
const WEB_KEYS = ["text", "instruction", "axtree", "url", "title", "focused"] as const;

describe("web state view (real Chromium)", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("renders every observation of oracle runs on every built-in task back exactly, elements structured", {
    timeout: 240_000,
  }, async () => {
    let lines = 0;
    let raw = 0;
    let elements = 0;
    let observations = 0;
    let cut = 0;
    for (const taskId of TASKS) {
      let o: Observation = await env.reset({ taskId, seed: 1 });
      for (let i = 0; i < 20; i++) {
        const state = checkRoundTrip(webStateViewer, o, WEB_KEYS);
        observations++;
        if ((o.axtree ?? "").includes(" more lines cut)")) cut++;
        const order = state.order as string[];
        lines += order.length;
        elements += order.filter((t) => t.startsWith("el:")).length;
        raw += Object.keys(state).filter((k) => k.endsWith(".raw")).length;
        const action = await env.oracleAction();
        if (action === null) break;
        const r = await env.step(action);
        o = r.observation;
        if (r.terminated || r.truncated) {
          checkRoundTrip(webStateViewer, o, WEB_KEYS);
          break;
        }
      }
    }
    expect(elements).toBeGreaterThan(20);
    // Lines the format does not describe are kept raw: only the cut marker may be one.
    expect(raw).toBeLessThanOrEqual(cut);
    expect(observations).toBeGreaterThan(TASKS.length);
    expect(lines).toBeGreaterThan(elements);
  });

  it("a checked checkbox in the state renders the line the page shows once it is clicked", {
    timeout: 120_000,
  }, async () => {
    const o = await env.reset({ taskId: "click-checkboxes", seed: 2 });
    const state = webStateViewer.view(o);
    const id = Object.keys(state)
      .find(
        (k) =>
          k.endsWith(".role") && state[k] === "checkbox" && state[k.replace(".role", ".checked")] === false,
      )
      ?.split(".")[1];
    if (id === undefined) throw new Error(`no unchecked checkbox in\n${o.axtree}`);
    const r = await env.step({ type: "click", elementId: id });
    const after = webStateViewer.view(r.observation);
    expect(after[`el.${id}.checked`]).toBe(true);
    const predicted = webStateViewer.render(
      {
        ...state,
        [`el.${id}.checked`]: true,
        [`el.${id}.focused`]: after[`el.${id}.focused`] ?? false,
        focus: after.focus ?? null,
      },
      o,
    );
    expect(predicted.axtree).not.toBe(o.axtree);
    const line = (obs: Observation) =>
      (obs.axtree ?? "").split("\n").find((l) => l.trimStart().startsWith(`[${id}] `));
    expect(line(predicted)).toBe(line(r.observation));
    expect(predicted.focused).toBe(r.observation.focused);
  });
});
