import type { Action, StateRecord } from "../../core/index.ts";
import type { ActionArgs } from "../worldbook/conditions.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import { judgeRule } from "./applicability.ts";
import type { Candidate, MemoryEntry, SimulatorOptions, StepContext } from "./contract.ts";
import { candidateRules, type WorldbookIndex } from "./retrieve.ts";
import type { ValidationIndex } from "./validation.ts";

/** Everything one step of the simulation reads: the book's indexes, the options, the step's inputs. */
export interface StepInputs {
  book: Worldbook;
  index: WorldbookIndex;
  validation: ValidationIndex;
  options: SimulatorOptions;
  state: StateRecord;
  action: Action;
  args: ActionArgs;
  context: StepContext;
  memory: ReadonlyArray<MemoryEntry>;
  /** The observation contract (`SimulatorDeps.observable`), when the caller gave one. */
  observable?: (state: StateRecord, taskId: string) => string | undefined;
}

/** Every rule matching the action, most specific first, with the applicability gate's verdict. */
export function judgeCandidates(inputs: StepInputs): Candidate[] {
  return candidateRules(inputs.index, inputs.args).map((rule) =>
    judgeRule(rule, inputs.state, inputs.args, inputs.context, inputs.options.confidenceThreshold),
  );
}

/** The trace's view of the candidates. */
export function traceCandidates(candidates: ReadonlyArray<Candidate>) {
  return candidates.map((c) => ({ rule: c.rule.id, verdict: c.verdict, reason: c.reason }));
}
