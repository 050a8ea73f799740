// Terminal environment benchmark: median step latency of a shell command against a web step (a click
// on the enter-text page) measured in the same run, reported as a ratio. Run by bench/run.ts.
import type { Action } from "../src/core/index.ts";
import { createTerminalEnvironment } from "../src/envs/terminal/index.ts";
import { createWebEnvironment } from "../src/envs/web/index.ts";

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function benchTerminal(): Promise<Record<string, number>> {
  const rounds = 30;
  const terminal = createTerminalEnvironment();
  const web = await createWebEnvironment({ observation: { screenshot: false }, enforceMaxSteps: false });
  try {
    await terminal.reset({ taskId: "project-cleanup", seed: 1 });
    const webObs = await web.reset({ taskId: "enter-text", seed: 1 });
    const id = /\[([A-Za-z0-9_-]+)\][^\n]*textbox/.exec(webObs.axtree ?? "")?.[1];
    if (!id) throw new Error("bench: no textbox on enter-text");
    const click: Action = { type: "click", elementId: id };
    const commands = ["ls -R", "cat */project.conf", "find . -name '*.c' | wc -l", "grep -r int . | head -3"];
    const shellSteps: number[] = [];
    const webSteps: number[] = [];
    for (let i = 0; i < 3; i++) await web.step(click);
    for (let i = 0; i < rounds; i++) {
      const command = commands[i % commands.length] as string;
      shellSteps.push(await timed(() => terminal.step({ type: "shell", command })));
      webSteps.push(await timed(() => web.step(click)));
      if (i % 20 === 19) await terminal.reset({ taskId: "project-cleanup", seed: 1 });
    }
    const t = median(shellSteps);
    const w = median(webSteps);
    return { terminalStepMs: t, webStepMs: w, webOverTerminalRatio: w / t };
  } finally {
    await terminal.close();
    await web.close();
  }
}
