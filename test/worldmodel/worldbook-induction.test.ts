import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Action, createRandom, type GridDirection, type StateRecord } from "../../src/core/index.ts";
import type { FrozenLakeConfigInput } from "../../src/envs/frozenlake/index.ts";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import {
  applyConsequences,
  applyRuleEffects,
  buildWorldbook,
  evaluateConditions,
  matchesAction,
  type Rule,
  readWorldbook,
  type TraceStep,
  worldbookDefaultsFor,
  writeWorldbook,
} from "../../src/worldmodel/index.ts";
import { DELTA, DIRS, distribution, pad4, SIDES, singleMapRandomTraces } from "./traces-helpers.ts";

/** A 5x5 map with two holes: a slip into a hole must not count as its own outcome. */
const HOLES_MAP = ["SFFFF", "FFFHF", "FFFFF", "FHFFF", "FFFFG"];

/** Traces of a seeded random policy on one map, states from the real FrozenLake state viewer. */
async function frozenLakeTraces(
  config: FrozenLakeConfigInput,
  rows: string[],
  episodes: number,
  id = "m",
): Promise<TraceStep[]> {
  return singleMapRandomTraces({
    config,
    rows,
    episodes,
    horizon: 60,
    id,
    random: createRandom("worldbook-induction", JSON.stringify(config), id),
    viewer: frozenLakeStateViewer,
    episodeId: (taskId, e) => `${taskId}-${pad4(e)}`,
    source: "run:test",
  });
}

function moveRules(rules: Rule[], direction: GridDirection): Rule[] {
  return rules.filter((r) => r.action.type === "move" && r.action.direction === direction);
}

describe("consequence rules for derived paths (real FrozenLake viewer)", () => {
  const settings: Array<[string, FrozenLakeConfigInput, [number, number, number]]> = [
    ["symmetric 1/3", { slippery: true }, [1 / 3, 1 / 3, 1 / 3]],
    ["(0, 2/3)", { successRate: 1 / 3, slipRatio: [0, 1] }, [1 / 3, 0, 2 / 3]],
  ];
  for (const [name, config, [intended, left, right]] of settings) {
    it(`recovers the ${name} slip on a map with holes when status/done are derived`, async () => {
      const steps = await frozenLakeTraces(config, HOLES_MAP, 500);
      // Without derived paths a slip into a hole (status, done change too) is an outcome of its own.
      const plain = buildWorldbook(steps.filter((st) => st.seed !== undefined && st.seed < 150));
      const wb = buildWorldbook(steps, worldbookDefaultsFor(["frozenlake"]));
      for (const d of DIRS) {
        const rules = moveRules(wb.rules, d);
        expect(rules).toHaveLength(1);
        const rule = rules[0] as Rule;
        const p = distribution(rule);
        const [l, r] = SIDES[d];
        expect(Math.abs((p[DELTA[d]] ?? 0) - intended)).toBeLessThanOrEqual(0.03);
        expect(Math.abs((p[DELTA[l]] ?? 0) - left)).toBeLessThanOrEqual(0.03);
        expect(Math.abs((p[DELTA[r]] ?? 0) - right)).toBeLessThanOrEqual(0.03);
        expect(rule.outcomes).toHaveLength(left > 0 ? 3 : 2);
        expect(rule.support).toBeGreaterThan(800);
        expect(moveRules(plain.rules, d)[0]?.outcomes.length).toBeGreaterThan(rule.outcomes.length);
      }
      const state = wb.outcomeRules.filter((o) => o.field === "state");
      expect(state).toContainEqual(
        expect.objectContaining({
          path: "status",
          value: "hole",
          when: { path: "agent.tile", op: "eq", value: "H" },
        }),
      );
      expect(state).toContainEqual(
        expect.objectContaining({
          path: "status",
          value: "goal",
          when: { path: "agent.tile", op: "eq", value: "G" },
        }),
      );
      expect(state).toContainEqual(
        expect.objectContaining({
          path: "done",
          value: true,
          when: { path: "agent.tile", op: "in", value: ["G", "H"] },
        }),
      );
    }, 300_000);
  }

  it("applyConsequences sets the derived fields, the reward and the end from the next state", async () => {
    const steps = await frozenLakeTraces({ slippery: true }, HOLES_MAP, 300);
    const wb = buildWorldbook(steps, worldbookDefaultsFor(["frozenlake"]));
    const start = wb.starts[0]?.state as StateRecord;
    const at = (row: number, col: number): StateRecord => ({ ...start, "agent.row": row, "agent.col": col });
    expect(applyConsequences(wb, at(1, 3))).toEqual({
      state: { ...at(1, 3), status: "hole", done: true },
      reward: 0,
      terminated: true,
    });
    expect(applyConsequences(wb, at(4, 4))).toEqual({
      state: { ...at(4, 4), status: "goal", done: true },
      reward: 1,
      terminated: true,
    });
    expect(applyConsequences(wb, at(2, 2))).toEqual({ state: at(2, 2), reward: 0, terminated: false });
    // Every real transition's reward and end are what the consequences say.
    const wrong = steps.filter((s) => {
      const c = applyConsequences(wb, s.nextState as StateRecord);
      return c.terminated !== s.terminated || c.reward !== s.reward;
    });
    expect(wrong).toEqual([]);
  }, 60_000);
});

describe("per-map bounds", () => {
  it("ties increment bounds to map.rows/map.cols when maps of two sizes show max = size - 1", async () => {
    const small = await frozenLakeTraces({ slippery: false }, ["SFF", "FFF", "FFG"], 200, "s3");
    const large = await frozenLakeTraces(
      { slippery: false },
      ["SFFFF", "FFFFF", "FFFFF", "FFFFF", "FFFFG"],
      200,
      "l5",
    );
    const wb = buildWorldbook([...small, ...large], worldbookDefaultsFor(["frozenlake"]));
    const down = moveRules(wb.rules, "down")[0] as Rule;
    const effect = down.outcomes[0]?.effects[0];
    expect(effect?.bounds).toMatchObject({ min: 0, max: 4, maxFrom: { offset: -1 } });
    expect(["map.rows", "map.cols"]).toContain(effect?.bounds?.maxFrom?.path);
    // On the 3x3 map a move down from the last row stays there (the global max 4 would let it walk off).
    const last = small.find((s) => s.state?.["agent.row"] === 2)?.state as StateRecord;
    const next = applyRuleEffects(last, down.outcomes[0]?.effects ?? [], down.action);
    expect(next?.["agent.row"]).toBe(2);
    expect(wb.invariants.taskRanges).toContainEqual({ task: "s3", path: "agent.row", min: 0, max: 2 });
    expect(wb.invariants.taskRanges).toContainEqual({ task: "l5", path: "agent.row", min: 0, max: 4 });
  }, 60_000);
});

/** A web-like page: checkboxes e1..e5 and text boxes t1..t3, in the web viewer's `el.<id>.*` paths. */
function page(checked: Record<string, boolean>, values: Record<string, string>): StateRecord {
  const state: StateRecord = { url: "http://local/form" };
  for (const [id, c] of Object.entries(checked)) {
    state[`el.${id}.role`] = "checkbox";
    state[`el.${id}.checked`] = c;
  }
  for (const [id, v] of Object.entries(values)) {
    state[`el.${id}.role`] = "textbox";
    state[`el.${id}.value`] = v;
  }
  return state;
}

/** Hand-built web traces: seeded random clicks on checkboxes and typing into text boxes. */
function webTraces(episodes: number, boxes: string[], fields: string[]): TraceStep[] {
  const random = createRandom("worldbook-web");
  const words = ["alpha", "beta", "gamma", "delta"];
  const steps: TraceStep[] = [];
  for (let e = 0; e < episodes; e++) {
    const checked = Object.fromEntries(boxes.map((b) => [b, false]));
    const values = Object.fromEntries(fields.map((f) => [f, ""]));
    for (let step = 0; step < 8; step++) {
      const before = page(checked, values);
      let action: Action;
      if (random.next() < 0.6) {
        const id = boxes[Math.floor(random.next() * boxes.length)] as string;
        action = { type: "click", elementId: id };
        checked[id] = !checked[id];
      } else {
        const id = fields[Math.floor(random.next() * fields.length)] as string;
        const text = words[Math.floor(random.next() * words.length)] as string;
        action = { type: "type", elementId: id, text };
        values[id] = text;
      }
      const after = page(checked, values);
      steps.push({
        episodeId: `w-${String(e).padStart(3, "0")}`,
        taskId: "form",
        family: "web",
        step,
        observation: { text: "form", axtree: "tree" },
        action,
        nextObservation: { text: "form", axtree: "tree" },
        reward: 0,
        terminated: false,
        truncated: step === 7,
        state: before,
        nextState: after,
        source: "run:web-test",
      });
    }
  }
  return steps;
}

/** What the engine's most specific applicable rule predicts (exact rules before lifted ones). */
function simulate(rules: Rule[], state: StateRecord, action: Action): StateRecord | undefined {
  const args = action as unknown as Record<string, unknown>;
  const fits = rules
    .filter((r) => r.status !== "conflicted" && matchesAction(r, args))
    .filter((r) => evaluateConditions(r.conditions, state, args).result === true)
    .sort((a, b) => a.params.length - b.params.length);
  const rule = fits[0];
  return rule ? applyRuleEffects(state, rule.outcomes[0]?.effects ?? [], args) : undefined;
}

describe("conditional and lifted rules (web-like toggles and typing)", () => {
  const boxes = ["e1", "e2", "e3", "e4", "e5"];
  const fields = ["t1", "t2", "t3"];
  const steps = webTraces(60, boxes, fields);
  const wb = buildWorldbook(steps);
  /** The book of the same traces in reverse order, built once for the two tests that compare it. */
  let reversedBook: ReturnType<typeof buildWorldbook> | undefined;
  const reversed = () => {
    reversedBook ??= buildWorldbook([...steps].reverse());
    return reversedBook;
  };

  it("splits a toggle into one deterministic rule per checked value", () => {
    const e1 = wb.rules.filter(
      (r) => r.params.length === 0 && r.action.type === "click" && r.action.elementId === "e1",
    );
    expect(e1.map((r) => r.conditions.at(-1))).toEqual([
      { path: "el.e1.checked", op: "eq", value: false },
      { path: "el.e1.checked", op: "eq", value: true },
    ]);
    expect(e1.map((r) => r.outcomes)).toEqual([
      [
        {
          effects: [{ op: "set", path: "el.e1.checked", value: true }],
          count: expect.any(Number),
          probability: 1,
        },
      ],
      [
        {
          effects: [{ op: "set", path: "el.e1.checked", value: false }],
          count: expect.any(Number),
          probability: 1,
        },
      ],
    ]);
    for (const r of e1) {
      expect(r.stochastic).toBe(false);
      expect(r.counterexamples).toBe(0);
      expect(r.support).toBeGreaterThanOrEqual(2);
    }
    const attributed = wb.evidence.filter((e) => e.attribution.status === "attributed");
    expect(attributed).toHaveLength(steps.length);
  });

  it("lifts clicks and typing over the element id and the typed text", () => {
    const lifted = wb.rules.filter((r) => r.params.length > 0);
    const click = lifted.filter((r) => r.action.type === "click");
    expect(click.map((r) => [r.params, r.conditions.at(-1), r.outcomes[0]?.effects])).toEqual([
      [
        ["elementId"],
        { path: "el.{elementId}.checked", op: "eq", value: false },
        [{ op: "set", path: "el.{elementId}.checked", value: true }],
      ],
      [
        ["elementId"],
        { path: "el.{elementId}.checked", op: "eq", value: true },
        [{ op: "set", path: "el.{elementId}.checked", value: false }],
      ],
    ]);
    const type = lifted.filter((r) => r.action.type === "type");
    expect(type).toHaveLength(1);
    expect(type[0]).toMatchObject({
      params: ["elementId", "text"],
      stochastic: false,
      counterexamples: 0,
      outcomes: [
        { effects: [{ op: "set", path: "el.{elementId}.value", from: "action.text" }], probability: 1 },
      ],
    });
    expect(type[0]?.support).toBe(steps.filter((s) => s.action.type === "type").length);
  });

  it("simulates a held-out page with unseen element ids and text through the lifted rules", () => {
    const state = page({ e1: false, z9: false }, { q7: "" });
    expect(simulate(wb.rules, state, { type: "click", elementId: "z9" })).toEqual(
      page({ e1: false, z9: true }, { q7: "" }),
    );
    expect(simulate(wb.rules, page({ z9: true }, {}), { type: "click", elementId: "z9" })).toEqual(
      page({ z9: false }, {}),
    );
    expect(simulate(wb.rules, state, { type: "type", elementId: "q7", text: "never typed" })).toEqual(
      page({ e1: false, z9: false }, { q7: "never typed" }),
    );
  });

  it("records observation contracts and notes, deterministically", () => {
    expect(wb.contracts).toEqual([
      { family: "web", fields: ["axtree", "text"], observations: steps.length * 2 },
    ]);
    expect(wb.notes).toContain(
      `click elementId="e1" when el.e1.checked is false: el.e1.checked becomes true [click:e1?el.e1.checked=false, support ${
        wb.rules.find((r) => r.id === "click:e1?el.e1.checked=false")?.support
      }]`,
    );
    expect(
      wb.notes?.some((n) =>
        n.startsWith("type elementId=any text=any: el.{elementId}.value becomes the value of action.text"),
      ),
    ).toBe(true);
    expect(reversed()).toEqual(wb);
  });

  it("writes contracts.json and notes.json byte-identically and still reads a book without them", () => {
    const a = mkdtempSync(join(tmpdir(), "wb-ind-a-"));
    const b = mkdtempSync(join(tmpdir(), "wb-ind-b-"));
    const old = mkdtempSync(join(tmpdir(), "wb-ind-old-"));
    try {
      writeWorldbook(a, wb);
      writeWorldbook(b, reversed());
      for (const n of readdirSync(a))
        expect(readFileSync(join(a, n)).equals(readFileSync(join(b, n)))).toBe(true);
      expect(readdirSync(a)).toEqual(expect.arrayContaining(["contracts.json", "notes.json"]));
      expect(readWorldbook(a)).toEqual(wb);
      const { contracts: _c, notes: _n, ...before } = wb;
      writeWorldbook(old, before);
      expect(readdirSync(old)).not.toContain("notes.json");
      expect(readWorldbook(old)).toEqual(before);
    } finally {
      for (const d of [a, b, old]) rmSync(d, { recursive: true, force: true });
    }
  });
});
