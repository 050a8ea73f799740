import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { createSignalController, SIGNAL_EXIT_CODES } from "../../src/runner/index.ts";

describe("createSignalController", () => {
  it("the first signal aborts and records itself; the second runs the hooks and exits with its code", () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const order: string[] = [];
    const c = createSignalController({
      source,
      exit: (code) => {
        order.push("exit");
        exits.push(code);
      },
      onFirst: (s) => order.push(`first:${s}`),
    });
    c.onForceExit(() => order.push("hook"));
    const removed = c.onForceExit(() => order.push("removed hook"));
    removed();
    expect(c.signal.aborted).toBe(false);
    expect(c.exitCode()).toBeUndefined();
    source.emit("SIGINT");
    expect(c.signal.aborted).toBe(true);
    expect(c.signal.reason).toBe("SIGINT");
    expect(c.received()).toBe("SIGINT");
    expect(c.exitCode()).toBe(130);
    expect(exits).toEqual([]);
    // A different second signal still exits with the first one's code.
    source.emit("SIGTERM");
    expect(exits).toEqual([130]);
    expect(order).toEqual(["first:SIGINT", "hook", "exit"]);
    c.dispose();
    expect(source.listenerCount("SIGINT") + source.listenerCount("SIGTERM")).toBe(0);
  });

  it("SIGTERM exits 143; a failing hook does not prevent the exit", () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const c = createSignalController({ source, exit: (code) => exits.push(code) });
    c.onForceExit(() => {
      throw new Error("store gone");
    });
    source.emit("SIGTERM");
    source.emit("SIGTERM");
    expect(exits).toEqual([SIGNAL_EXIT_CODES.SIGTERM]);
    expect(SIGNAL_EXIT_CODES).toEqual({ SIGINT: 130, SIGTERM: 143 });
    c.dispose();
  });
});
