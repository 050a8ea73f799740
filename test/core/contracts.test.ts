import { describe, expect, it } from "vitest";
import {
  ActionSchema,
  createManualClock,
  createMemoryLogger,
  createRubric,
  createRuntime,
  createSequentialIds,
  EnvironmentError,
  isRehearsalError,
  toRehearsalError,
  UserError,
  type Verifier,
} from "../../src/core/index.ts";

describe("action schema", () => {
  it("accepts each action type", () => {
    const ok = [
      { type: "click", x: 10, y: 20 },
      { type: "click", elementId: "12" },
      { type: "double_click", elementId: "a" },
      { type: "right_click", x: 1, y: 2 },
      { type: "hover", elementId: "3" },
      { type: "drag", from: { x: 1, y: 2 }, to: { elementId: "4" } },
      { type: "type", text: "hello" },
      { type: "key", keys: "ctrl+a" },
      { type: "key", keys: "Escape" },
      { type: "scroll", direction: "down", amount: 300 },
      { type: "scroll", direction: "up", x: 5, y: 5 },
      { type: "select", elementId: "9", value: "Red" },
      { type: "wait", ms: 100 },
      { type: "done" },
      { type: "fail", reason: "stuck" },
      { type: "move", direction: "left" },
      { type: "uci", move: "e7e8q" },
    ];
    for (const a of ok) expect(ActionSchema.safeParse(a).success, JSON.stringify(a)).toBe(true);
    expect(ActionSchema.parse({ type: "wait" })).toEqual({ type: "wait", ms: 500 });
  });

  it("rejects malformed actions", () => {
    const bad = [
      { type: "click" },
      { type: "click", x: 1 },
      { type: "click", x: 1, y: 2, elementId: "3" },
      { type: "scroll", direction: "sideways" },
      { type: "key", keys: "" },
      { type: "wait", ms: -1 },
      { type: "move", direction: "north" },
      { type: "uci", move: "e9e4" },
      { type: "teleport" },
      { type: "type", text: "x", extra: 1 },
    ];
    for (const a of bad) expect(ActionSchema.safeParse(a).success, JSON.stringify(a)).toBe(false);
  });
});

describe("errors", () => {
  it("carry code, category and cause", () => {
    const cause = new Error("boom");
    const e = new EnvironmentError("env.browser_crashed", "Chromium died during step 3", { cause });
    expect(e.category).toBe("environment");
    expect(e.code).toBe("env.browser_crashed");
    expect(e.cause).toBe(cause);
    expect(e.name).toBe("EnvironmentError");
    expect(isRehearsalError(e)).toBe(true);
    expect(e.toJSON()).toMatchObject({ code: "env.browser_crashed", category: "environment" });
    const wrapped = toRehearsalError(new TypeError("x"));
    expect(wrapped.category).toBe("internal");
    const u = new UserError("config.invalid", "bad");
    expect(toRehearsalError(u)).toBe(u);
  });
});

describe("runtime", () => {
  it("is deterministic from explicit parts", () => {
    const clock = createManualClock(1000);
    const logger = createMemoryLogger();
    const rt = createRuntime({ seed: 7, clock, ids: createSequentialIds(), logger });
    expect(rt.ids.next("run")).toBe("run_000001");
    expect(rt.ids.next("run")).toBe("run_000002");
    expect(rt.ids.next("traj")).toBe("traj_000001");
    clock.advance(5);
    expect(rt.clock.nowMs()).toBe(1005);
    expect(rt.random("a").next()).toBe(createRuntime({ seed: 7 }).random("a").next());
    rt.logger.child({ run: "r1" }).info("hello", { n: 1 });
    expect(logger.records[0]).toMatchObject({ level: "info", message: "hello", fields: { run: "r1", n: 1 } });
  });
});

describe("rubric", () => {
  const fixed = (name: string, reward: number, success = reward >= 1): Verifier<null> => ({
    name,
    verify: async () => ({ reward, success, reason: name, metrics: {} }),
  });

  it("weights parts, records weight-0 metrics and applies gates", async () => {
    const r = await createRubric("r", [
      { verifier: fixed("a", 1), weight: 3 },
      { verifier: fixed("b", 0), weight: 1 },
      { verifier: fixed("metric", 0.5), weight: 0 },
    ]).verify(null);
    expect(r.reward).toBeCloseTo(0.75);
    expect(r.success).toBe(false);
    expect(r.metrics).toMatchObject({ a: 1, b: 0, metric: 0.5 });
    const gated = await createRubric("g", [
      { verifier: fixed("format", 0, false), weight: 0, gate: true },
      { verifier: fixed("a", 1), weight: 1 },
    ]).verify(null);
    expect(gated.reward).toBe(0);
    expect(gated.success).toBe(false);
    expect(gated.reason).toContain("gate format failed");
    const pass = await createRubric("p", [{ verifier: fixed("a", 1), weight: 1 }]).verify(null);
    expect(pass.success).toBe(true);
  });
});
