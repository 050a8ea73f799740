import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { FIXTURE_PAGES, idWhere } from "./helpers.ts";

describe("web network isolation", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ tasksDir: FIXTURE_PAGES, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("blocks and counts every request not to the task server", async () => {
    const obs = await env.reset({ taskId: "network-fetch", seed: 0 });
    // The stylesheet and the image of the page itself were blocked while loading.
    expect(obs.data?.blockedRequests).toBe(2);
    let r = await env.step({ type: "click", elementId: idWhere(obs, /button "Go"/) });
    for (let i = 0; i < 20 && !/local:ok/.test(r.observation.axtree ?? ""); i++) {
      r = await env.step({ type: "wait", ms: 50 });
    }
    expect(r.observation.axtree).toContain('text "fetch:blocked local:ok xhr:blocked"');
    expect(r.info.blockedRequests).toBe(4);
    expect(r.info.blockedUrls).toEqual(
      expect.arrayContaining(["https://api.example.com/data.json", "http://93.184.216.34/x"]),
    );
    expect(env.metrics().blockedRequests).toBeGreaterThanOrEqual(4);
  });

  it("counts per episode, and totals over episodes", async () => {
    const before = env.metrics().blockedRequests;
    const obs = await env.reset({ taskId: "network-fetch", seed: 1 });
    expect(obs.data?.blockedRequests).toBe(2);
    expect(env.metrics().blockedRequests).toBe(before + 2);
  });
});
