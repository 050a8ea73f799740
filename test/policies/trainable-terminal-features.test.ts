import { describe, expect, it } from "vitest";
import type { Action, PolicyContext } from "../../src/core/index.ts";
import { linearFeatures } from "../../src/policies/trainable/index.ts";

const task = {
  id: "t",
  instruction: "Copy the file that holds the code X1 to ~/found.txt",
  family: "terminal",
  seed: 0,
  split: "train" as const,
  verifier: { kind: "k" },
  tags: [],
};
const grep: Action = { type: "shell", command: "grep -rl X1 ~/docs" };
/** After `grep -rl` printed one path (exit 0). */
const context: PolicyContext = {
  task,
  observation: {
    text: "t",
    data: { exitCode: 0, stdout: "/home/user/docs/iris/kestrel.txt\n" },
  },
  history: [{ observation: { text: "t0", data: { exitCode: null, stdout: "" } }, action: grep, raw: "" }],
  stepIndex: 1,
};
const named = (action: Action) => new Map(linearFeatures(context, action));

describe("linear terminal features", () => {
  it("tell a command on the path the last output printed from one on another path", () => {
    const found = named({ type: "shell", command: "cp ~/docs/iris/kestrel.txt ~/found.txt" });
    const other = named({ type: "shell", command: "cp ~/docs/iris/pepper.txt ~/found.txt" });
    expect(found.get("term:path-in-last-output|verb=cp")).toBe(0.5);
    expect(other.get("term:path-in-last-output|verb=cp")).toBe(0);
    expect(found.get("term:verb=cp|last-exit=ok")).toBe(1);
  });

  it("tell done with the last output as the answer from a bare done, and read the last exit code", () => {
    const bare = named({ type: "done" });
    const answer = named({ type: "done", answer: "3" });
    expect(bare.get("term:done|last-exit=ok")).toBe(1);
    expect(bare.has("term:done-answer")).toBe(false);
    expect(answer.get("term:done-answer|last-exit=ok")).toBe(1);
    const first = new Map(linearFeatures({ ...context, history: [], stepIndex: 0 }, { type: "done" }));
    expect(first.get("term:done|last-exit=none")).toBe(1);
  });
});
