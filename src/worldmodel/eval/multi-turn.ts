import type { StateViewer, Task } from "../../core/index.ts";
import type { SimulatorOptionsInput, SimulatorSystem } from "../runtime/contract.ts";
import { createSimulator, type SimulatorDeps } from "../runtime/index.ts";
import type { TraceStep } from "../trace.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import { episodesOf, heldoutTransition, taskIndex } from "./heldout.ts";
import { predictOutcomes } from "./prediction.ts";
import { renderContract } from "./render-contract.ts";
import type { MultiTurnReport } from "./report.ts";
import { statesEqual } from "./state-metrics.ts";

export interface MultiTurnOptions {
  system: SimulatorSystem;
  /** Views steps that carry no state. */
  viewer?: StateViewer;
  tasks?: ReadonlyArray<Task>;
  simulator?: Omit<SimulatorOptionsInput, "system">;
  /** The simulator's dependencies (the chat client of the LLM proposer). */
  deps?: SimulatorDeps;
}

/** The median of a non-empty list. */
function median(xs: ReadonlyArray<number>): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The first divergence of each episode in `lengths`/`divergences` summarised: `divergences[i]` is the
 * 0-based step whose simulated next state first differed from the real one, or undefined.
 */
export function summariseDivergence(
  system: string,
  lengths: ReadonlyArray<number>,
  divergences: ReadonlyArray<number | undefined>,
): MultiTurnReport {
  const diverged = divergences.filter((d): d is number => d !== undefined);
  const longest = Math.max(0, ...lengths);
  const consistency: number[] = [];
  for (let k = 0; k < longest; k++) {
    const long = lengths.map((n, i) => ({ n, d: divergences[i] })).filter((e) => e.n > k);
    consistency.push(long.filter((e) => e.d === undefined || e.d > k).length / long.length);
  }
  return {
    system,
    episodes: lengths.length,
    neverDiverged: lengths.length === 0 ? 0 : (lengths.length - diverged.length) / lengths.length,
    diverged: diverged.length,
    meanFirstDivergence: diverged.length === 0 ? null : diverged.reduce((a, b) => a + b, 0) / diverged.length,
    medianFirstDivergence: diverged.length === 0 ? null : median(diverged),
    consistency,
  };
}

/**
 * Open-loop multi-turn consistency: from each held-out episode's first real state, the episode's real
 * actions are simulated in order, each from the previous simulated state (most likely next state, no
 * sampling), until the simulated next state first differs from the real one on any path.
 */
export async function evaluateMultiTurn(
  book: Worldbook,
  heldoutEpisodes: ReadonlyArray<TraceStep>,
  options: MultiTurnOptions,
): Promise<MultiTurnReport> {
  const tasks = taskIndex(book, options.tasks);
  const viewer = options.viewer;
  const contract = viewer ? renderContract(viewer, options.deps) : undefined;
  const simulator = createSimulator(
    book,
    { ...options.simulator, system: options.system },
    contract?.deps ?? options.deps,
  );
  const episodes = episodesOf(heldoutEpisodes);
  const divergences: Array<number | undefined> = [];
  for (const steps of episodes) {
    const real = steps.map((s) => heldoutTransition(s, tasks, options.viewer));
    let state = real[0]?.before ?? {};
    let divergence: number | undefined;
    for (const [k, t] of real.entries()) {
      contract?.at(t.step.observation, t.task);
      const prediction = await predictOutcomes(simulator, state, t.step.action, t.step.taskId);
      state = prediction.argmax.state;
      if (!statesEqual(state, t.after)) {
        divergence = k;
        break;
      }
    }
    divergences.push(divergence);
  }
  return summariseDivergence(
    options.system,
    episodes.map((e) => e.length),
    divergences,
  );
}
