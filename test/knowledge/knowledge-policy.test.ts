import { describe, expect, it } from "vitest";
import { type Action, createRandom, type PolicyContext, TaskSchema } from "../../src/core/index.ts";
import {
  createKnowledgePolicy,
  createKnowledgeTable,
  createStatisticalWriter,
  ExperienceBuffer,
  scoreActions,
} from "../../src/knowledge/index.ts";
import { episode, step } from "./helpers.ts";

const MOVES: Action[] = (["left", "down", "right", "up"] as const).map((direction) => ({
  type: "move",
  direction,
}));
const task = TaskSchema.parse({ id: "m", instruction: "", family: "frozenlake", verifier: { kind: "x" } });

function context(stateKey: string): PolicyContext {
  return { task, observation: { text: "", stateKey, legalActions: MOVES }, history: [], stepIndex: 0 };
}

async function table() {
  const t = createKnowledgeTable();
  const b = new ExperienceBuffer();
  b.add(episode("a", 0, [step("S", "down", "H", { terminal: true })]));
  b.add(episode("b", 0, [step("S", "right", "G", { terminal: true, reward: 1 })]));
  b.add(episode("c", 0, [step("S", "left", "S2", { truncated: true })]));
  b.add(episode("d", 0, [step("S", "up", "S3", { truncated: true })]));
  const d = await createStatisticalWriter().understand({
    key: "S",
    epoch: 0,
    prior: undefined,
    continuations: b.continuations("S", { n: 10, h: 15 }),
  });
  await t.write({ key: "S", epoch: 0, expectedVersion: 0, ...(d as NonNullable<typeof d>) });
  return t;
}

describe("knowledge policy", () => {
  it("prefers the highest-valued action at low temperature", async () => {
    const policy = createKnowledgePolicy({
      table: await table(),
      keys: (c) => [c.observation.stateKey ?? ""],
      temperature: 0.05,
    });
    const counts: Record<string, number> = {};
    for (let i = 0; i < 50; i++) {
      const p = await policy.propose(context("S"), { n: 1, temperature: 0, random: createRandom("t", i) });
      const a = p.candidates[0]?.action;
      const label = a?.type === "move" ? a.direction : "?";
      counts[label] = (counts[label] ?? 0) + 1;
    }
    expect(counts.right).toBe(50);
  });

  it("gives unknown actions the optimistic prior and falls back to coarser keys", async () => {
    const t = await table();
    const scores = scoreActions(context("other"), {
      table: t,
      keys: () => ["other", "S"],
      optimisticPrior: 0.7,
    });
    expect(scores.map((s) => [s.label, s.q, s.source])).toEqual([
      ["left", 0, "S"],
      ["down", -1, "S"],
      ["right", 1, "S"],
      ["up", 0, "S"],
    ]);
    const unknown = scoreActions(context("nowhere"), {
      table: t,
      keys: () => ["nowhere"],
      optimisticPrior: 0.7,
    });
    expect(unknown.every((s) => s.q === 0.7 && s.source === null)).toBe(true);
    const policy = createKnowledgePolicy({ table: t, keys: () => ["S"], temperature: 5 });
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const p = await policy.propose(context("S"), { n: 1, temperature: 1, random: createRandom("hot", i) });
      seen.add(JSON.stringify(p.candidates[0]?.action));
    }
    expect(seen.size).toBe(4);
  });
});
