import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRandom, type EnvironmentSnapshot, type HistoryEntry } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { CATALOG, type NoiseGenerator } from "../../src/noise/index.ts";
import { NoisyEnvironment } from "../../src/noise/noisy-environment.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";

// The heuristic policy with and without recovery on real pages: every generator fires once after
// the first action of login-user (three steps when clean); greedy decoding, so each run is exact.
// Every play starts from the same clean page (login-user, seed 3): a snapshot of it, taken once,
// restored with the play's schedule (its event fires after the first action, as after a reset).
async function play(env: NoisyEnvironment, start: EnvironmentSnapshot, g: NoiseGenerator, recovery: boolean) {
  const policy = createHeuristicWebPolicy({ recovery });
  env.setSchedule([{ id: "e1", step: 1, generator: g.name, seed: 5 }]);
  const task = env.suite.get("login-user");
  let observation = await env.restore(structuredClone(start));
  const history: HistoryEntry[] = [];
  for (let t = 0; t < 12; t++) {
    const { candidates } = await policy.propose(
      { task, observation, history, stepIndex: t },
      { n: 1, temperature: 0, random: createRandom("live", g.name, t) },
    );
    const action = candidates[0]?.action;
    if (!action) break;
    const r = await env.step(action);
    history.push({ observation, action, raw: candidates[0]?.raw ?? "" });
    observation = r.observation;
    if (r.terminated || r.truncated) break;
  }
  const outcome = await env.evaluate();
  return { success: outcome.success, event: env.events()[0] };
}

const BLOCKING = [
  "modal-overlay",
  "escape-only-modal",
  "native-alert",
  "native-confirm",
  "notes-tab-typing",
  "newsletter-popup",
];

describe("heuristic recovery on live noise", () => {
  let web: WebEnvironment;
  let env: NoisyEnvironment;
  let start: EnvironmentSnapshot;
  beforeAll(async () => {
    web = await createWebEnvironment({ observation: { screenshot: false } });
    env = new NoisyEnvironment(web);
    env.setSchedule([]);
    await env.reset({ taskId: "login-user", seed: 3 });
    start = await env.snapshot();
  });
  afterAll(async () => {
    await env?.close();
  });

  it("recovers from (nearly) every generator and beats the same policy without recovery", {
    timeout: 300_000,
  }, async () => {
    let withRecovery = 0;
    let without = 0;
    let recovered = 0;
    const missed: string[] = [];
    for (const g of CATALOG) {
      const a = await play(env, start, g, true);
      const b = await play(env, start, g, false);
      if (a.success) withRecovery += 1;
      else missed.push(g.name);
      if (b.success) without += 1;
      if (a.event?.recoveredAt !== null || g.recovery === "ignore") recovered += 1;
      if (BLOCKING.includes(g.name)) {
        expect(a.success, `${g.name} with recovery`).toBe(true);
        expect(b.success, `${g.name} without recovery`).toBe(false);
      }
    }
    expect(withRecovery, `missed: ${missed.join(", ")}`).toBeGreaterThanOrEqual(CATALOG.length - 4);
    expect(withRecovery).toBeGreaterThan(without + 8);
    expect(recovered).toBeGreaterThanOrEqual(CATALOG.length - 6);
  });
});
