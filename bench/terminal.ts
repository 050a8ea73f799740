// Terminal environment benchmark: the median step latency of the terminal against a web step measured
// in the same run, interleaved one for one, reported as a ratio. Run by bench/run.ts.
//
// The same kind of work per step on both sides: one agent action and the observation that follows.
// Web: a click on the enter-text page (the page is re-observed: accessibility tree and text).
// Terminal: the commands that solve the built-in tasks, i.e. each task's oracle script (ls, cat, find,
// grep, mkdir, cp, mv, rm, sed -i, awk, sort, cut, pipes and redirections), played task after task
// with resets between them; resets are not timed on either side.
import type { Action } from "../src/core/index.ts";
import { createTerminalEnvironment, TERMINAL_TASK_SPECS } from "../src/envs/terminal/index.ts";
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
  const minSteps = 120;
  const terminal = createTerminalEnvironment();
  const web = await createWebEnvironment({ observation: { screenshot: false }, enforceMaxSteps: false });
  try {
    const webObs = await web.reset({ taskId: "enter-text", seed: 1 });
    const id = /\[([A-Za-z0-9_-]+)\][^\n]*textbox/.exec(webObs.axtree ?? "")?.[1];
    if (!id) throw new Error("bench: no textbox on enter-text");
    const click: Action = { type: "click", elementId: id };
    for (let i = 0; i < 3; i++) await web.step(click);
    const shellSteps: number[] = [];
    const webSteps: number[] = [];
    for (let round = 0; shellSteps.length < minSteps; round++) {
      for (const spec of TERMINAL_TASK_SPECS) {
        await terminal.reset({ taskId: spec.id, seed: 1 + (round % 5) });
        for (let action = await terminal.oracleAction(); action?.type === "shell"; ) {
          const step = action;
          shellSteps.push(await timed(() => terminal.step(step)));
          webSteps.push(await timed(() => web.step(click)));
          action = await terminal.oracleAction();
        }
      }
    }
    const t = median(shellSteps);
    const w = median(webSteps);
    return { terminalSteps: shellSteps.length, terminalStepMs: t, webStepMs: w, webOverTerminalRatio: w / t };
  } finally {
    await terminal.close();
    await web.close();
  }
}
