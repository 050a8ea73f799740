import { describe, expect, it } from "vitest";
import { parseAction } from "../../src/llm/index.ts";
import { MALFORMED, WELL_FORMED } from "./cases.ts";

describe("parseAction", () => {
  it.each(MALFORMED.map((c) => [c.name, c] as const))("rejects %s", (_name, c) => {
    const result = parseAction(c.text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(c.code);
    if (c.mentions) expect(result.error.message).toContain(c.mentions);
  });

  it.each(WELL_FORMED.map((c) => [c.name, c] as const))("accepts %s", (_name, c) => {
    expect(parseAction(c.text)).toEqual({ ok: true, action: c.action });
  });

  it("treats a repeated identical action as one", () => {
    const text =
      'I will click {"type": "click", "elementId": "1"}.\nAction: {"type": "click", "elementId": "1"}';
    expect(parseAction(text)).toEqual({ ok: true, action: { type: "click", elementId: "1" } });
  });

  it("prefers the action after the Action: marker over examples in the reasoning", () => {
    const text =
      'Options: {"type": "click", "elementId": "1"} or {"type": "click", "elementId": "2"}.\nAction: {"type": "click", "elementId": "2"}';
    expect(parseAction(text)).toEqual({ ok: true, action: { type: "click", elementId: "2" } });
  });

  it("reads an action named in an action field", () => {
    expect(parseAction('{"action": "move", "direction": "left"}')).toEqual({
      ok: true,
      action: { type: "move", direction: "left" },
    });
  });

  it("flags two actions given as a JSON array", () => {
    const r = parseAction('[{"type": "done"}, {"type": "fail"}]');
    expect(r.ok ? null : r.error.code).toBe("parse.multiple_actions");
  });

  it("flags an action followed by a cut-off second one", () => {
    const r = parseAction('{"type": "done"} {"type": "cli');
    expect(r.ok ? null : r.error.code).toBe("parse.multiple_actions");
  });

  it("does not mistake braces in prose for truncated JSON", () => {
    const r = parseAction("I would use a set {like this and then stop");
    expect(r.ok ? null : r.error.code).toBe("parse.no_action");
  });

  it("reports unexpected fields", () => {
    const r = parseAction('{"type": "done", "confidence": 0.9}');
    expect(r.ok ? null : r.error).toEqual({
      code: "parse.invalid_arguments",
      message: "invalid arguments for done: unexpected field confidence",
    });
  });

  it("never throws, whatever it is given", () => {
    const inputs: unknown[] = [null, undefined, 42, "{".repeat(10_000), "}".repeat(50), '{"type":}'];
    for (const input of inputs) expect(() => parseAction(input as string)).not.toThrow();
  });
});
