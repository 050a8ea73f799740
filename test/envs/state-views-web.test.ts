import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Observation } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment, webStateViewer } from "../../src/envs/web/index.ts";

// Real Chromium: a state edited as the page would change renders the page's line. (Every observation
// of the oracle's seed-1 run on every built-in task rendering back exactly is checked in
// web-tasks/oracle.test.ts, on the episodes that test plays anyway.)

describe("web state view (real Chromium)", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
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
