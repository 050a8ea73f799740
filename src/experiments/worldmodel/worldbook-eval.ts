import { existsSync } from "node:fs";
import { type Task, UserError } from "../../core/index.ts";
import { stateViewerFor } from "../../envs/state-viewers.ts";
import { loadWorldbook, worldbookFamily } from "../../worldmodel/environment/index.ts";
import { type FamilyEvalReport, frozenLakeTrueDistribution } from "../../worldmodel/eval/index.ts";
import type { W2rResult } from "../../worldmodel/eval/w2r.ts";
import { heldoutTracePath, readTraceFile, type TraceStep } from "../../worldmodel/index.ts";
import { SimulatorSystemSchema } from "../../worldmodel/runtime/contract.ts";
import { evaluateBook } from "./evaluate.ts";
import { type W2rRunOptions, worldToRealOfBook } from "./w2r-run.ts";

export interface WorldbookEvalOptions {
  dir: string;
  /** Held-out steps from runs or files; default: `DIR/heldout/test.jsonl` as `worldbook build` wrote it. */
  heldout?: { steps: TraceStep[]; tasks: Task[] };
  /** System names (copy, retrieval, rules, gates, full); an unknown one is a UserError. */
  systems?: ReadonlyArray<string>;
  multiTurn?: boolean;
  ablations?: boolean;
  /** The real environment's options (FrozenLake's slip: the TV noise floor and W2R use them). */
  envOptions?: Record<string, unknown>;
  w2r?: W2rRunOptions;
}

export interface WorldbookEvalResult {
  dir: string;
  heldout: string;
  report: FamilyEvalReport;
  w2r?: W2rResult;
}

/**
 * `rehearsal worldbook eval`: the worldbook in `dir` scored on held-out traces (fidelity of the five
 * systems with TV, multi-turn, ablations) and, with `w2r`, world-to-real against the real environment.
 */
export async function runWorldbookEval(options: WorldbookEvalOptions): Promise<WorldbookEvalResult> {
  const { book } = loadWorldbook(options.dir);
  const family = worldbookFamily(book, options.dir);
  const viewer = stateViewerFor(family);
  if (!viewer)
    throw new UserError(
      "worldbook_eval.no_viewer",
      `worldbook eval: family ${family} of ${options.dir} has no state viewer. Fix: evaluate a worldbook of frozenlake, chess, web or terminal`,
    );
  const systems = options.systems?.map((s) => {
    const parsed = SimulatorSystemSchema.safeParse(s);
    if (parsed.success) return parsed.data;
    throw new UserError(
      "worldbook_eval.bad_system",
      `worldbook eval: unknown system '${s}'. Fix: choose from ${SimulatorSystemSchema.options.join(", ")}`,
    );
  });
  const path = heldoutTracePath(options.dir, "test");
  if (!options.heldout && !existsSync(path))
    throw new UserError(
      "worldbook_eval.no_heldout",
      `worldbook eval: ${options.dir} has no held-out traces (${path}). Fix: build it with 'rehearsal worldbook build', or pass --runs or --traces`,
    );
  const heldout = options.heldout ?? { steps: readTraceFile(path), tasks: [] };
  if (heldout.steps.length === 0)
    throw new UserError(
      "worldbook_eval.empty_heldout",
      `worldbook eval: the held-out traces (${options.heldout ? "--runs/--traces" : path}) hold no transitions. Fix: give held-out episodes`,
    );
  const envOptions = options.envOptions ?? {};
  const report = await evaluateBook(book, heldout.steps, {
    family,
    viewer,
    tasks: heldout.tasks,
    ...(systems ? { systems } : {}),
    ...(options.multiTurn === false ? { multiTurn: [] } : {}),
    ...(options.ablations === false ? { ablations: false } : {}),
    ...(family === "frozenlake" ? { trueDistribution: frozenLakeTrueDistribution(envOptions) } : {}),
  });
  if (!options.w2r) return { dir: options.dir, heldout: options.heldout ? "(given)" : path, report };
  const w2r = await worldToRealOfBook(book, family, envOptions, options.w2r);
  return { dir: options.dir, heldout: options.heldout ? "(given)" : path, report, w2r };
}
