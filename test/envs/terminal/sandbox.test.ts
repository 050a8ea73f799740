import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTerminalEnvironment } from "../../../src/envs/terminal/index.ts";

async function runOne(command: string, limits = {}) {
  const env = createTerminalEnvironment({ limits });
  await env.reset({ taskId: "make-layout", seed: 1 });
  const started = Date.now();
  const r = await env.step({ type: "shell", command });
  const ms = Date.now() - started;
  await env.close();
  return {
    r,
    ms,
    stdout: String(r.observation.data?.stdout ?? ""),
    stderr: String(r.observation.data?.stderr ?? ""),
  };
}

describe("terminal sandbox", () => {
  it("cannot read the host file system", async () => {
    const host = readFileSync("/etc/passwd", "utf8");
    const { stdout } = await runOne("cat /etc/passwd; ls /; cat /proc/self/environ");
    expect(host.length).toBeGreaterThan(0);
    expect(stdout).not.toContain(host.split("\n")[0] as string);
    expect(stdout).not.toContain("root:");
  });

  it("cannot write to the host file system", async () => {
    const target = join(tmpdir(), `rehearsal-terminal-escape-${process.pid}.txt`);
    const { r } = await runOne(`mkdir -p ${tmpdir()} && echo escaped > ${target} && cat ${target}`);
    expect(r.observation.data?.stdout).toBe("escaped\n");
    expect(existsSync(target)).toBe(false);
  });

  it("has no network", async () => {
    const { stdout, stderr } = await runOne(
      "curl -s http://127.0.0.1:1/ ; wget http://example.com; echo rc=$?",
    );
    expect(stderr).toMatch(/curl: command not found/);
    expect(stdout).toContain("rc=127");
  });

  it.each([
    ["an infinite loop", "while true; do :; done"],
    ["yes", "yes | head -5; yes > /dev/null"],
    ["a fork bomb", ":(){ :|:& };:"],
    ["a runaway string", "x=a; while :; do x=$x$x; done"],
    ["a long sleep", "sleep 100000; echo woke"],
  ])(
    "stops %s in bounded time",
    async (_name, command) => {
      const { r, ms } = await runOne(command, { maxExecutionMs: 2_000 });
      expect(ms).toBeLessThan(15_000);
      expect(r.terminated).toBe(false);
      if (command.startsWith("while true") || command.startsWith(":(")) {
        // On a loaded machine the wall-time deadline can come before the command count.
        expect(["command_budget_exceeded", "command_timeout"]).toContain(r.observation.error?.code);
      }
    },
    30_000,
  );
});
