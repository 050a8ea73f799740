import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../src/core/policy.ts";
import { createRandom } from "../../../src/core/random.ts";
import { createTerminalEnvironment, createTerminalSuite } from "../../../src/envs/terminal/index.ts";
import { createTerminalTemplatePolicy } from "../../../src/policies/terminal-template-policy.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";

const COMMANDS = ["ls -R", "mkdir -p out", "echo $RANDOM > out/r.txt", "cd out", "cat r.txt; date", "ls -l"];

describeEnvironmentConformance({
  name: "terminal",
  create: async () => createTerminalEnvironment(),
  taskIds: ["find-and-copy", "project-cleanup"],
  seeds: [1, 2],
  chooseAction: (_o, i) => ({ type: "shell", command: COMMANDS[i % COMMANDS.length] as string }),
  invalidActions: [
    { type: "move", direction: "left" },
    { type: "shell", command: "x".repeat(3000) },
  ],
  steps: 6,
});

async function fileSystemOf(taskId: string, seed: number): Promise<string> {
  const env = createTerminalEnvironment();
  await env.reset({ taskId, seed });
  const view = await env.stateView();
  await env.close();
  return JSON.stringify(view.tree);
}

describe("terminal environment", () => {
  it("same seed gives the same file system; different seeds differ", async () => {
    for (const task of createTerminalSuite().list()) {
      expect(await fileSystemOf(task.id, 3), task.id).toBe(await fileSystemOf(task.id, 3));
      expect(await fileSystemOf(task.id, 3), task.id).not.toBe(await fileSystemOf(task.id, 4));
    }
  });

  it("keeps cwd and exported variables across steps and restores them exactly", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "make-layout", seed: 1 });
    await env.step({ type: "shell", command: "mkdir -p a/b && cd a && export GREETING=hi" });
    const snap = await env.snapshot();
    const r = await env.step({ type: "shell", command: "cd b; echo $GREETING > g.txt; pwd" });
    expect(r.observation.data?.stdout).toBe("/home/user/a/b\n");
    await env.reset({ taskId: "dedupe-lines", seed: 2 });
    await env.restore(JSON.parse(JSON.stringify(snap)));
    const again = await env.step({ type: "shell", command: "cd b; echo $GREETING > g.txt; pwd" });
    expect(again.observation).toEqual(r.observation);
    const view = await env.stateView();
    expect(view.cwd).toBe("/home/user/a/b");
    expect(view.lastExitCode).toBe(0);
    expect(view.tree.find((n) => n.path === "/home/user/a/b/g.txt")?.size).toBe(3);
    await env.close();
  });

  it("is deterministic inside the shell: fixed clock and seeded $RANDOM", async () => {
    const run = async (seed: number) => {
      const env = createTerminalEnvironment();
      await env.reset({ taskId: "make-layout", seed });
      const r = await env.step({
        type: "shell",
        command: "echo $RANDOM $((RANDOM % 100)); date +%F; touch f; ls -l f",
      });
      await env.close();
      return String(r.observation.data?.stdout);
    };
    expect(await run(1)).toBe(await run(1));
    expect(await run(1)).not.toBe(await run(2));
    expect(await run(1)).toContain("2024-01-01");
  });

  it("truncates long output with an explicit marker", async () => {
    const env = createTerminalEnvironment({ maxOutputChars: 100 });
    await env.reset({ taskId: "make-layout", seed: 1 });
    const r = await env.step({ type: "shell", command: "seq 1 1000" });
    expect(String(r.observation.data?.stdout)).toMatch(/\[\.\.\. output truncated: \d+ more characters\]/);
    expect(r.info.outputTruncated).toBe(true);
    await env.close();
  });

  it("done ends the episode with the verifier's reward; the printed answer is checked", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "answer-file-count", seed: 1 });
    const wrong = await env.step({ type: "done", answer: "-1" });
    expect(wrong.terminated).toBe(true);
    expect(wrong.reward).toBe(0.5);
    expect((await env.evaluate()).success).toBe(false);
    await env.close();
  });

  it("punishes over-deletion: deleting everything scores 0", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "delete-by-rule", seed: 1 });
    await env.step({ type: "shell", command: "rm -rf workspace/*" });
    const v = await env.evaluate();
    expect(v.reward).toBe(0);
    expect(v.reason).toContain("gate");
    await env.close();
  });

  it("random template commands never solve a long-tier task in 20 episodes", async () => {
    const env = createTerminalEnvironment();
    const policy = createTerminalTemplatePolicy();
    const suite = createTerminalSuite();
    const long = suite.list().filter((t) => t.tier === "long");
    let solved = 0;
    for (let episode = 0; episode < 20; episode++) {
      const task = long[episode % long.length] as (typeof long)[number];
      let observation = await env.reset({ taskId: task.id, seed: episode });
      const history: HistoryEntry[] = [];
      const random = createRandom("test-random-long", episode);
      for (let i = 0; i < (task.maxSteps ?? 30); i++) {
        const { candidates } = await policy.propose(
          { task, observation, history, stepIndex: i },
          { n: 1, temperature: 5, random },
        );
        const action = candidates[0]?.action ?? { type: "done" };
        const r = await env.step(action);
        history.push({ observation, action, raw: "" });
        observation = r.observation;
        if (r.terminated || r.truncated) break;
      }
      if ((await env.evaluate()).success) solved++;
    }
    await env.close();
    expect(solved).toBe(0);
  }, 120_000);
});
