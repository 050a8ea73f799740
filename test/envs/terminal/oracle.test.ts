import { describe, expect, it } from "vitest";
import { createTerminalEnvironment, createTerminalSuite } from "../../../src/envs/terminal/index.ts";

const tasks = createTerminalSuite().list();

describe("terminal suite", () => {
  it("has at least 16 tasks in two tiers, some held out", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(16);
    expect(new Set(tasks.map((t) => t.tier))).toEqual(new Set(["short", "long"]));
    expect(tasks.some((t) => t.split === "heldout")).toBe(true);
    expect(tasks.filter((t) => t.tier === "long").length).toBeGreaterThanOrEqual(4);
  });

  it("every task starts unsolved and its oracle solves every seed 1-5", async () => {
    const env = createTerminalEnvironment();
    const failures: string[] = [];
    try {
      for (const task of tasks) {
        for (let seed = 1; seed <= 5; seed++) {
          await env.reset({ taskId: task.id, seed });
          const before = await env.evaluate();
          if (before.success) failures.push(`${task.id}#${seed} solved at reset`);
          let done = false;
          let commands = 0;
          for (let i = 0; i < 40 && !done; i++) {
            const action = await env.oracleAction();
            if (action === null) break;
            if (action.type === "shell") commands++;
            const r = await env.step(action);
            if (r.observation.error) failures.push(`${task.id}#${seed}: ${r.observation.error.message}`);
            done = r.terminated || r.truncated;
            if (r.terminated && r.reward !== 1) {
              const v = await env.evaluate();
              failures.push(`${task.id}#${seed}: ${v.reason}\n${r.observation.text}`);
            }
          }
          if (task.id === "project-cleanup") expect(commands).toBeGreaterThanOrEqual(8);
        }
      }
    } finally {
      await env.close();
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
