import type { StateViewer, Task } from "../../core/index.ts";
import {
  ALL_SYSTEMS,
  evaluateAblations,
  evaluateFidelity,
  evaluateMultiTurn,
  type FamilyEvalReport,
  learningCurve,
  type TrueDistributionHook,
} from "../../worldmodel/eval/index.ts";
import type { TraceStep, Worldbook, WorldbookOptionsInput } from "../../worldmodel/index.ts";
import type { SimulatorSystem } from "../../worldmodel/runtime/contract.ts";

export interface EvaluateBookOptions {
  family: string;
  viewer: StateViewer;
  /** Systems of the fidelity table (default all five). */
  systems?: ReadonlyArray<SimulatorSystem>;
  tasks?: ReadonlyArray<Task>;
  trueDistribution?: TrueDistributionHook;
  /** Systems whose open-loop multi-turn consistency is measured (default copy, rules, full; [] for none). */
  multiTurn?: ReadonlyArray<SimulatorSystem>;
  /** The evidence-only / abstractions-only / both ablations of the full system (default on). */
  ablations?: boolean;
  /** A learning curve: the worldbook rebuilt from growing prefixes of the construction traces. */
  learningCurve?: {
    buildSteps: ReadonlyArray<TraceStep>;
    seed: string | number;
    sizes?: ReadonlyArray<number>;
    build?: WorldbookOptionsInput;
  };
}

/**
 * Everything the evaluation measures on one family's held-out traces: next-state fidelity of each
 * system (with TV), multi-turn consistency, the ablations and, when asked, a learning curve. Shared by
 * `rehearsal worldbook eval` and the per-family experiment.
 */
export async function evaluateBook(
  book: Worldbook,
  heldout: ReadonlyArray<TraceStep>,
  options: EvaluateBookOptions,
): Promise<FamilyEvalReport> {
  const common = {
    viewer: options.viewer,
    ...(options.tasks ? { tasks: options.tasks } : {}),
    ...(options.trueDistribution ? { trueDistribution: options.trueDistribution } : {}),
  };
  const fidelity = await evaluateFidelity(book, heldout, {
    ...common,
    systems: options.systems ?? ALL_SYSTEMS,
  });
  const multiTurn = [];
  for (const system of options.multiTurn ?? (["copy", "rules", "full"] as const))
    multiTurn.push(await evaluateMultiTurn(book, heldout, { ...common, system }));
  const ablations = options.ablations === false ? undefined : await evaluateAblations(book, heldout, common);
  const curve = options.learningCurve
    ? await learningCurve(options.learningCurve.buildSteps, heldout, {
        ...common,
        seed: options.learningCurve.seed,
        ...(options.learningCurve.sizes ? { sizes: options.learningCurve.sizes } : {}),
        ...(options.learningCurve.build ? { build: options.learningCurve.build } : {}),
        buildExtras: { tasks: book.tasks },
      })
    : undefined;
  return {
    family: options.family,
    fidelity,
    ...(multiTurn.length > 0 ? { multiTurn } : {}),
    ...(ablations ? { ablations } : {}),
    ...(curve ? { learningCurve: curve } : {}),
  };
}
