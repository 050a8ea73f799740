// The terminal checks a shell action without zod on its fast path; it must accept exactly what
// ShellActionSchema accepts, with the same command.
import { describe, expect, it } from "vitest";
import { MAX_SHELL_COMMAND_CHARS, ShellActionSchema } from "../../../src/core/action.ts";
import { createTerminalEnvironment, plainShellCommand } from "../../../src/envs/terminal/index.ts";

const COMMANDS: unknown[] = [
  "ls",
  "cat a.txt",
  "",
  " ",
  "\t\n",
  " x ",
  "x".repeat(MAX_SHELL_COMMAND_CHARS),
  "x".repeat(MAX_SHELL_COMMAND_CHARS + 1),
  "\u00a0",
  "\u3000echo",
  7,
  null,
  undefined,
  ["ls"],
];

function candidates(): unknown[] {
  const out: unknown[] = [null, undefined, 3, "ls", ["shell", "ls"], {}, { type: "shell" }];
  for (const command of COMMANDS) {
    out.push({ type: "shell", command });
    out.push({ command, type: "shell" });
    out.push({ type: "shell", command, extra: 1 });
    out.push({ type: "Shell", command });
    out.push({ type: "click", command });
    out.push({ type: "shell", command, answer: undefined });
  }
  const inherited = Object.create({ type: "shell" }) as Record<string, unknown>;
  inherited.command = "ls";
  inherited.other = 1;
  out.push(inherited);
  const hidden = { type: "shell", x: 1 };
  Object.defineProperty(hidden, "command", { value: "ls", enumerable: false });
  out.push(hidden);
  return out;
}

describe("terminal shell action check", () => {
  it("accepts exactly what ShellActionSchema accepts, with its command", () => {
    let accepted = 0;
    for (const input of candidates()) {
      const parsed = ShellActionSchema.safeParse(input);
      const fast = plainShellCommand(input);
      if (fast !== undefined) {
        accepted++;
        expect(parsed.success, JSON.stringify(input)).toBe(true);
        expect(fast).toBe(parsed.data?.command);
      }
    }
    expect(accepted).toBeGreaterThanOrEqual(8);
  });

  it("still rejects blank and extra-key actions as invalid actions", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "find-and-copy", seed: 1 });
    for (const action of [
      { type: "shell", command: "  " },
      { type: "shell", command: "ls", x: 1 },
    ]) {
      const r = await env.step(action as never);
      expect(r.observation.error?.code).toBe("invalid_action");
    }
    const ok = await env.step({ type: "shell", command: "pwd" });
    expect(ok.observation.error).toBeUndefined();
    await env.close();
  });
});
