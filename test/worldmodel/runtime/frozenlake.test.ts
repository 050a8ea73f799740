import { describe, expect, it } from "vitest";
import { type Action, canonicalJson, createRandom, type StateRecord } from "../../../src/core/index.ts";
import {
  createSimulator,
  createWorkspace,
  type SimulatorSystem,
  type Worldbook,
} from "../../../src/worldmodel/index.ts";
import { frozenLakeBook, frozenLakeTraces, OPEN_MAP } from "./helpers.ts";

const down: Action = { type: "move", direction: "down" };
const left: Action = { type: "move", direction: "left" };

function startState(book: Worldbook, row: number, col: number): StateRecord {
  const start = book.starts[0]?.state as StateRecord;
  return { ...start, "agent.row": row, "agent.col": col };
}

const cell = (s: StateRecord) => `${s["agent.row"]},${s["agent.col"]}`;

describe("simulator on a FrozenLake worldbook built from real traces", () => {
  it("step draws follow predict's distribution, which follows the rule's slip estimate", async () => {
    const book = await frozenLakeBook({ slippery: true }, OPEN_MAP, 60);
    const sim = createSimulator(book);
    const state = startState(book, 2, 2);
    const predicted = await sim.predict(state, down, { taskId: "m" });
    const byCell = new Map<string, number>();
    for (const p of predicted)
      byCell.set(cell(p.step.state), (byCell.get(cell(p.step.state)) ?? 0) + p.probability);
    expect([...predicted].reduce((s, p) => s + p.probability, 0)).toBeCloseTo(1, 9);
    // Down, or a perpendicular slip to either side, each about 1/3 (truth), estimated from the traces.
    for (const target of ["3,2", "2,1", "2,3"])
      expect(Math.abs((byCell.get(target) ?? 0) - 1 / 3)).toBeLessThan(0.06);
    for (const p of predicted) {
      expect(p.step.trace.fired).toEqual([expect.stringContaining("move:down")]);
      expect(p.step.trace.outcome?.probability).toBeGreaterThan(0);
    }
    const random = createRandom("draws", "frozenlake");
    const n = 3000;
    const counts = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const step = await sim.step(state, down, { taskId: "m" }, random.next());
      counts.set(cell(step.state), (counts.get(cell(step.state)) ?? 0) + 1);
    }
    for (const [target, probability] of byCell)
      expect(Math.abs((counts.get(target) ?? 0) / n - probability)).toBeLessThan(0.03);
    expect(state["agent.row"]).toBe(2);
  });

  it("the (0, 2/3) slip setting: at a wall the bounded outcomes merge into one next state", async () => {
    const book = await frozenLakeBook(
      { slippery: true, successRate: 1 / 3, slipRatio: [0, 1] },
      OPEN_MAP,
      60,
    );
    const sim = createSimulator(book);
    const mid = await sim.predict(startState(book, 2, 2), down, { taskId: "m" });
    const p = (cells: string) =>
      mid.filter((x) => cell(x.step.state) === cells).reduce((s, x) => s + x.probability, 0);
    // Facing down, Gymnasium's "left" side is right (col+1) and its "right" side is left (col-1).
    expect(Math.abs(p("3,2") - 1 / 3)).toBeLessThan(0.06);
    expect(Math.abs(p("2,1") - 2 / 3)).toBeLessThan(0.06);
    expect(p("2,3")).toBeLessThan(0.02);
    const corner = await sim.predict(startState(book, 0, 0), left, { taskId: "m" });
    // Facing left at (0, 0): forward and the likely side (up) both stay put, so they merge into one.
    const stay = corner.filter((x) => cell(x.step.state) === "0,0" && x.step.state.status === "running");
    expect(stay).toHaveLength(1);
    expect(stay[0]?.probability).toBeGreaterThan(0.95);
    expect(corner.every((x) => ["0,0", "1,0"].includes(cell(x.step.state)))).toBe(true);
  });

  it("on held-out episodes of a deterministic map, full ≥ retrieval > copy; workspace snapshots are exact", async () => {
    const rows = ["SFFF", "FHFH", "FFFH", "HFFG"];
    const book = await frozenLakeBook({ slippery: false }, rows, 80);
    const heldOut = await frozenLakeTraces({ slippery: false }, rows, 30, "held-out");
    const accuracy: Record<string, number> = {};
    for (const system of ["copy", "retrieval", "rules", "gates", "full"] as SimulatorSystem[]) {
      const sim = createSimulator(book, { system });
      let exact = 0;
      for (const t of heldOut) {
        const [best] = (await sim.predict(t.state as StateRecord, t.action, { taskId: t.taskId })).sort(
          (a, b) => b.probability - a.probability,
        );
        if (best && canonicalJson(best.step.state) === canonicalJson(t.nextState)) exact++;
      }
      accuracy[system] = exact / heldOut.length;
    }
    expect(accuracy.full).toBeGreaterThan(accuracy.copy as number);
    expect(accuracy.retrieval).toBeGreaterThan(accuracy.copy as number);
    expect(accuracy.gates).toBeGreaterThanOrEqual(accuracy.retrieval as number);
    expect(accuracy.full).toBeGreaterThanOrEqual(accuracy.retrieval as number);

    const ws = createWorkspace(book, { taskId: "m", state: book.starts[0]?.state as StateRecord });
    await ws.step({ type: "move", direction: "right" }, 0.1);
    const snap = ws.snapshot();
    const a = await ws.step(down, 0.7);
    ws.restore(snap);
    expect(ws.snapshot()).toEqual(snap);
    const b = await ws.step(down, 0.7);
    expect(b).toEqual(a);
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });
});
