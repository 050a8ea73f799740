import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, createRandom, type Observation, type Random, type Task } from "../../src/core/index.ts";
import { createWebEnvironment, type WebEnvironment } from "../../src/envs/web/index.ts";
import { createRandomPolicy, elementIdsOf } from "../../src/policies/random-policy.ts";

/**
 * The random policy reads element ids with the accessibility-text parser. Its choices must be the ones
 * it made when it scanned the text with its own `[id]` regex: the reference below is that former
 * implementation, compared on real pages' axtrees (a few tasks, one with a noise modal) for fixed seeds.
 * They differ only where the former regex was wrong: brackets inside a quoted name or text.
 */
const FORMER_ID = /\[([A-Za-z0-9_-]+)\]/g;
const WORDS = ["hello", "test", "42", "yes", "blue", "2024"];

function formerIds(observation: Observation): string[] {
  const ids = new Set<string>();
  for (const m of (observation.axtree ?? "").matchAll(FORMER_ID)) if (m[1]) ids.add(m[1]);
  return [...ids];
}

function formerAction(observation: Observation, random: Random): Action {
  const ids = formerIds(observation);
  const roll = random.next();
  if (ids.length > 0 && roll < 0.7) return { type: "click", elementId: random.pick(ids) };
  if (ids.length > 0 && roll < 0.85)
    return { type: "type", text: random.pick(WORDS), elementId: random.pick(ids) };
  if (roll < 0.95) return { type: "scroll", direction: random.pick(["up", "down"] as const), amount: 300 };
  return { type: "key", keys: random.pick(["Enter", "Tab", "Escape"]) };
}

const TASKS = ["enter-text", "click-checkboxes", "select-dropdown", "email-forward", "form-wizard"];
const task: Task = {
  id: "t",
  instruction: "",
  family: "web",
  seed: 0,
  split: "train",
  verifier: { kind: "page" },
  tags: [],
};

describe("random policy over web pages", () => {
  let env: WebEnvironment;
  const pages: Observation[] = [];
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
    for (const taskId of TASKS) pages.push(await env.reset({ taskId, seed: 3 }));
    await env.reset({ taskId: "login-user", seed: 1 });
    const modal = {
      kind: "widget",
      widget: {
        layout: "modal",
        role: "dialog",
        title: "Notice",
        body: ["Scheduled maintenance tonight at 2:00."],
        buttons: [{ label: "OK" }],
      },
    };
    expect(await env.applyPerturbation({ id: "e0", effect: modal as never })).toBeNull();
    pages.push(await env.observeNow());
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it("reads the same element ids as before, in the same order", () => {
    for (const page of pages) {
      expect(elementIdsOf(page).length, page.url).toBeGreaterThan(1);
      expect(elementIdsOf(page), page.url).toEqual(formerIds(page));
    }
    expect(pages.at(-1)?.axtree).toMatch(/\[9\d{5}\]/);
  });

  it("takes ids from element lines only, not from brackets inside names or texts", () => {
    const axtree = `text "Read [1] first"\n[12] button "[x] Close"\n  [13] textbox "Note" value="[draft]"`;
    const observation: Observation = { text: axtree, axtree };
    expect(elementIdsOf(observation)).toEqual(["12", "13"]);
    expect(formerIds(observation)).toEqual(["1", "12", "x", "13", "draft"]);
  });

  it("makes the same choices for fixed seeds", async () => {
    const policy = createRandomPolicy();
    for (const [p, page] of pages.entries()) {
      for (const seed of [1, 2, 3, 7, 11]) {
        const { candidates } = await policy.propose(
          { task, observation: page, history: [], stepIndex: 0 },
          { n: 16, temperature: 1, random: createRandom("random-policy-test", p, seed) },
        );
        const former = createRandom("random-policy-test", p, seed);
        const expected = candidates.map(() => formerAction(page, former));
        expect(
          candidates.map((c) => c.action),
          `${page.url} seed ${seed}`,
        ).toEqual(expected);
      }
    }
  });
});
