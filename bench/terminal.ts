// Terminal environment benchmark: the median step latency of the terminal against a web step measured
// in the same run, reported as ratios. Run by bench/run.ts. The main figure (`webOverTerminalRatio`)
// alternates blocks: a pass over the suite, then 25 web clicks, 8 times, so each side runs back to back
// as in a rollout of its own and both see the machine of the same minutes. `...Interleaved...` alternates
// one for one: the terminal step then runs right after a click, with caches cold (the worst case).
//
// The same kind of work per step on both sides: one agent action and the observation that follows.
// Web: a click on the enter-text page (the page is re-observed: accessibility tree and text).
// Terminal: the commands that solve the built-in tasks, i.e. each task's oracle script (ls, cat, find,
// grep, mkdir, cp, mv, rm, sed -i, awk, sort, cut, pipes and redirections), played task after task
// with resets between them; resets are not timed on either side. Both sides are warmed up first (the
// web by a few clicks, the terminal by 30 passes over the suite, about 2,100 commands: the
// interpreter's code takes that long to reach its compiled steady state, as Chromium's already is).
// The last two warm-up passes are timed: the terminal step with nothing interleaved (`...Alone`), the
// share of commands the exact fast path answered (`info.fastPath`) and the median step of each side.
import type { Action, StepResult } from "../src/core/index.ts";
import {
  createTerminalEnvironment,
  TERMINAL_TASK_SPECS,
  type TerminalEnvironment,
} from "../src/envs/terminal/index.ts";
import { createWebEnvironment } from "../src/envs/web/index.ts";

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Plays every task's oracle commands (seed by round); `each` must run each step (it may time it). */
async function playSuite(
  terminal: TerminalEnvironment,
  round: number,
  each: (step: () => Promise<StepResult>) => Promise<void>,
): Promise<void> {
  for (const spec of TERMINAL_TASK_SPECS) {
    await terminal.reset({ taskId: spec.id, seed: 1 + (round % 5) });
    for (let action = await terminal.oracleAction(); action?.type === "shell"; ) {
      const step = action;
      await each(() => terminal.step(step));
      action = await terminal.oracleAction();
    }
  }
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
    const alone: number[] = [];
    const aloneFast: number[] = [];
    const aloneSlow: number[] = [];
    for (let round = 0; round < 30; round++)
      await playSuite(terminal, round, async (step) => {
        if (round < 28) {
          await step();
          return;
        }
        let result: StepResult | undefined;
        const ms = await timed(async () => {
          result = await step();
        });
        alone.push(ms);
        (result?.info.fastPath === true ? aloneFast : aloneSlow).push(ms);
      });
    const shellSteps: number[] = [];
    const webSteps: number[] = [];
    for (let round = 0; shellSteps.length < minSteps; round++) {
      await playSuite(terminal, round, async (step) => {
        shellSteps.push(await timed(step));
        webSteps.push(await timed(() => web.step(click)));
      });
    }
    // Blocks: one pass over the suite, then a run of web clicks, alternately, so that each side runs back
    // to back as it does in a rollout of its own while both see the same machine over the same minutes.
    const blockShell: number[] = [];
    const blockWeb: number[] = [];
    for (let round = 0; round < 8; round++) {
      await playSuite(terminal, round, async (step) => {
        blockShell.push(await timed(step));
      });
      for (let i = 0; i < 25; i++) blockWeb.push(await timed(() => web.step(click)));
    }
    const t = median(shellSteps);
    const w = median(webSteps);
    const tb = median(blockShell);
    const wb = median(blockWeb);
    return {
      terminalStepBlockMs: tb,
      webStepBlockMs: wb,
      webOverTerminalRatio: wb / tb,
      terminalSteps: shellSteps.length,
      terminalStepInterleavedMs: t,
      terminalStepInterleavedMeanMs: mean(shellSteps),
      webStepInterleavedMs: w,
      webOverTerminalInterleavedRatio: w / t,
      terminalStepAloneMs: median(alone),
      terminalStepAloneMeanMs: mean(alone),
      webOverTerminalAloneRatio: wb / median(alone),
      // Share of the suite's commands that the exact fast path answers, and the median step of each side.
      fastPathShare: aloneFast.length / alone.length,
      fastPathStepAloneMs: median(aloneFast),
      justBashStepAloneMs: median(aloneSlow),
    };
  } finally {
    await terminal.close();
    await web.close();
  }
}
