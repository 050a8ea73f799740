import { describe, expect, it } from "vitest";
import { type Action, createRandom, type StateRecord, type StateValue } from "../../../src/core/index.ts";
import {
  actionKey,
  applyEffects,
  createSimulator,
  createWorkspace,
  diffStates,
  type Effect,
  indexWorldbook,
  type MemoryEntry,
  pathsChangedBy,
  rankPrecedents,
} from "../../../src/worldmodel/index.ts";
import { plainCopy } from "../../../src/worldmodel/runtime/plain-copy.ts";
import { HAND_STATE, handBook, rule } from "./helpers.ts";

// The step's speed-ups must not change a result: each is checked against the plain computation it replaces.

describe("plainCopy (the JSON round trip without the text)", () => {
  const cases: unknown[] = [
    { a: 1, b: "x", c: [1, "y", null, true], d: { e: { f: [] } } },
    { gone: undefined, fn: () => 1, kept: 0, neg: -0, nan: Number.NaN, inf: Number.POSITIVE_INFINITY },
    [undefined, () => 1, Number.NaN, -0, { z: undefined }],
    { date: new Date(0), nested: { list: [{ x: 1 }, [2, [3]]] } },
    JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
    { text: 'line\n"quoted" \u2028 é', empty: "", map: new Map([[1, 2]]) },
    "just a string",
    42,
    null,
  ];
  it.each(cases.map((c, i) => [i, c]))("case %i gives what JSON.parse(JSON.stringify(x)) gives", (_, c) => {
    const json = JSON.parse(JSON.stringify(c));
    const copy = plainCopy(c);
    expect(copy).toStrictEqual(json);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(json));
  });

  it("is deep: changing the copy leaves the original as it was", () => {
    const original = { list: [{ x: 1 }], inner: { y: [2] } };
    const copy = plainCopy(original);
    copy.list[0] = { x: 9 };
    (copy.inner.y as number[]).push(3);
    expect(original).toEqual({ list: [{ x: 1 }], inner: { y: [2] } });
    expect(Object.getPrototypeOf(plainCopy(JSON.parse('{"__proto__": {"p": 1}}')))).toBe(Object.prototype);
  });
});

describe("pathsChangedBy (the validation gate's changed paths)", () => {
  it("lists exactly diffStates' changed paths of applyEffects, in the same order, on random effect lists", () => {
    const random = createRandom("step-speed", "changed-paths");
    const paths = ["a", "b", "c.d", "c.e", "list", "n"];
    const values: StateValue[] = [0, 1, 2, "x", "y", true, false, null, ["p"], ["p", "q"], []];
    const pick = <T>(xs: ReadonlyArray<T>): T => xs[random.int(xs.length)] as T;
    for (let trial = 0; trial < 500; trial++) {
      const before: StateRecord = {};
      for (const p of paths) if (random.next() < 0.7) before[p] = pick(values);
      const effects: Effect[] = Array.from({ length: random.int(5) }, (): Effect => {
        const path = pick(paths);
        switch (random.int(6)) {
          case 0:
            return { op: "delete", path };
          case 1:
            return { op: "increment", path, value: random.int(3) };
          case 2:
            return { op: "decrement", path, value: 1, bounds: { min: 0, max: 1 } };
          case 3:
            return { op: "append", path, value: ["q"] };
          case 4:
            return { op: "remove", path, value: ["p"] };
          default:
            return { op: "set", path, value: pick(values) };
        }
      });
      const after = applyEffects(before, effects);
      expect(pathsChangedBy(before, after, effects)).toEqual(
        diffStates(before, after).facts.map((f) => f.path),
      );
    }
  });
});

const clickE1: Action = { type: "click", elementId: "e1" };
const incrementRule = rule({
  id: "inc",
  action: { type: "click", elementId: "e1" },
  outcomes: [{ effects: [{ op: "increment", path: "count", value: 1 }], count: 10, probability: 1 }],
});

describe("episodic memory entries (facts and effects worked out when first read)", () => {
  it("hold diffStates' facts and effects of the committed step, and snapshot as plain JSON", async () => {
    const book = handBook([incrementRule]);
    const ws = createWorkspace(book, { taskId: "t", state: HAND_STATE }, createSimulator(book));
    await ws.step(clickE1, 0);
    await ws.step(clickE1, 0);
    const two = { ...HAND_STATE, count: 2 };
    const three = { ...HAND_STATE, count: 3 };
    const expected: MemoryEntry[] = [
      { action: actionKey(clickE1), ...diffStates(HAND_STATE, two), reward: 0, terminated: false },
      { action: actionKey(clickE1), ...diffStates(two, three), reward: 0, terminated: false },
    ];
    expect(ws.memory()).toEqual(expected);
    const snap = ws.snapshot();
    expect(JSON.stringify(snap.memory)).toBe(JSON.stringify(expected));
    expect(Object.getOwnPropertyDescriptor(snap.memory[0], "facts")?.get).toBeUndefined();
    ws.restore(snap);
    expect(ws.memory()).toEqual(expected);
  });

  it("retrieval names a memory precedent by its index in the memory it is given, cached or not", () => {
    const book = handBook([]);
    const index = indexWorldbook(book);
    const entry: MemoryEntry = {
      action: actionKey(clickE1),
      facts: [{ path: "count", before: 1, after: 2 }],
      effects: [{ op: "increment", path: "count", value: 1 }],
      reward: 0,
      terminated: false,
    };
    const other: MemoryEntry = { ...entry, action: actionKey({ type: "click", elementId: "e2" }) };
    const args = clickE1 as unknown as Record<string, string>;
    expect(rankPrecedents(index, HAND_STATE, args, [entry]).map((p) => p.id)).toEqual(["memory#0"]);
    expect(rankPrecedents(index, HAND_STATE, args, [entry]).map((p) => p.id)).toEqual(["memory#0"]);
    expect(rankPrecedents(index, HAND_STATE, args, [other, entry]).map((p) => p.id)).toEqual(["memory#1"]);
    expect(rankPrecedents(index, HAND_STATE, args, [entry, entry]).map((p) => p.id)).toEqual([
      "memory#1",
      "memory#0",
    ]);
  });
});
