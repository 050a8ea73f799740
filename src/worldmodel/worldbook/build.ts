import { type Observation, type StateRecord, type Task, TaskSchema, UserError } from "../../core/index.ts";
import type { SplitManifest } from "../splits.ts";
import type { TraceStep } from "../trace.ts";
import { TaskRangeCollector } from "./bounds.ts";
import { actionKey, diffStates, statesOf, withLookups } from "./evidence.ts";
import { induceRules, type Transition } from "./induce-rules.ts";
import { ActionCollector, inferSchemas } from "./infer-schemas.ts";
import { deriveInvariants, FieldStatsCollector, fieldPattern } from "./invariants.ts";
import { ContractCollector, ruleNotes } from "./notes.ts";
import { induceOutcomeRules, type OutcomeSample } from "./outcome-rules.ts";
import {
  type Evidence,
  type Start,
  WORLDBOOK_VERSION,
  type Worldbook,
  type WorldbookOptionsInput,
  WorldbookOptionsSchema,
} from "./schema.ts";

function parseOptions(input: WorldbookOptionsInput) {
  const parsed = WorldbookOptionsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new UserError(
    "worldbook.bad_options",
    `buildWorldbook(): options are invalid: ${issues.join("; ")}.`,
    {
      cause: parsed.error,
    },
  );
}

/** A step's source without its line number (`file:<path>:<line>` → `file:<path>`). */
function traceSource(source: string): string {
  return source.startsWith("file:") ? source.replace(/:\d+$/, "") : source;
}

/** Steps in a fixed order (episode, then step) so that the worldbook does not depend on input order. */
function ordered(steps: ReadonlyArray<TraceStep>): TraceStep[] {
  return [...steps].sort((a, b) =>
    a.episodeId < b.episodeId ? -1 : a.episodeId > b.episodeId ? 1 : a.step - b.step,
  );
}

/** `state` without the derived paths (exact paths or `fieldPattern` patterns): what rules' effects cover. */
function withoutDerived(state: StateRecord, derived: ReadonlySet<string>): StateRecord {
  if (derived.size === 0) return state;
  const out: StateRecord = {};
  for (const [path, value] of Object.entries(state)) {
    if (!derived.has(path) && !derived.has(fieldPattern(path))) out[path] = value;
  }
  return out;
}

/** What a build records beside the traces: the tasks they ran (by id) and the split they came from. */
export interface BuildExtras {
  /** Tasks of the traces' episodes; a task not given is made from its first observation. */
  tasks?: ReadonlyArray<Task>;
  split?: SplitManifest;
}

/** An observation as a start keeps it: without screenshot bytes (the image is not part of the state). */
function storedObservation(o: Observation): Observation {
  if (!o.screenshot) return o;
  const { screenshot: _s, ...rest } = o;
  return rest;
}

/** The tasks the starts name: the given ones, or a minimal task scored by the simulated reward. */
function tasksOf(
  ids: ReadonlyArray<string>,
  steps: ReadonlyArray<TraceStep>,
  given: ReadonlyArray<Task>,
): Task[] {
  const byId = new Map(given.map((t) => [t.id, t]));
  return ids.map((id) => {
    const known = byId.get(id);
    if (known) return known;
    const first = steps.find((s) => s.taskId === id) as TraceStep;
    return TaskSchema.parse({
      id,
      instruction: first.observation.instruction ?? "",
      family: first.family,
      verifier: { kind: "worldmodel-reward" },
    });
  });
}

/**
 * A worldbook from traces whose steps carry `state` and `nextState`: schemas, grounded evidence, rules,
 * outcome rules and invariants. Pure and deterministic: the same steps (in any order) give the same book.
 */
export function buildWorldbook(
  steps: ReadonlyArray<TraceStep>,
  input: WorldbookOptionsInput = {},
  extras: BuildExtras = {},
): Worldbook {
  const options = parseOptions(input);
  const sorted = ordered(steps);
  const taskOfEpisode = new Map(sorted.map((s) => [`${s.episodeId}#${s.step}`, s.taskId]));
  const taskOf = (transitionId: string): string => taskOfEpisode.get(transitionId) ?? "";
  const fields = new FieldStatsCollector();
  const actions = new ActionCollector();
  const transitions: Transition[] = [];
  const samples: OutcomeSample[] = [];
  const pending: Array<Omit<Evidence, "attribution">> = [];
  const seenEpisodes = new Set<string>();
  const starts: Start[] = [];
  const taskIds = new Set<string>();
  const taskRanges = new TaskRangeCollector();
  const contracts = new ContractCollector();
  const derived = new Set(options.derivedPaths);
  for (const step of sorted) {
    const states = statesOf(step);
    if (!states) {
      throw new UserError(
        "worldbook.no_state",
        `buildWorldbook(): step ${step.step} of episode "${step.episodeId}" (${step.source}) has no state/nextState; build traces with a state viewer for family "${step.family}".`,
      );
    }
    const first = !seenEpisodes.has(step.episodeId);
    seenEpisodes.add(step.episodeId);
    if (first) {
      starts.push({
        taskId: step.taskId,
        episodeId: step.episodeId,
        ...(step.seed === undefined ? {} : { seed: step.seed }),
        observation: storedObservation(step.observation),
        state: states.before,
      });
      taskIds.add(step.taskId);
    }
    fields.addState(states.before, first);
    fields.addState(states.after, false);
    taskRanges.add(step.taskId, states.before);
    taskRanges.add(step.taskId, states.after);
    contracts.add(step);
    const { facts } = diffStates(states.before, states.after);
    const before = withoutDerived(states.before, derived);
    const after = withoutDerived(states.after, derived);
    const { effects } = diffStates(before, after);
    fields.addChanged(facts.map((f) => f.path));
    const action = step.action as Record<string, unknown>;
    actions.add(action);
    const id = `${step.episodeId}#${step.step}`;
    const key = actionKey(action);
    transitions.push({ id, key, action, before, after, effects });
    samples.push({
      after: withLookups(states.after, options.lookups),
      reward: step.reward,
      terminated: step.terminated,
      truncated: step.truncated,
    });
    pending.push({
      id,
      provenance: { source: step.source, episodeId: step.episodeId, taskId: step.taskId, step: step.step },
      action: key,
      facts,
      effects,
      outcome: { reward: step.reward, terminated: step.terminated, truncated: step.truncated },
    });
  }
  const globalRanges = fields.ranges();
  const ranges = taskRanges.withRelativeBounds(globalRanges);
  const { rules, attributions } = induceRules(transitions, ranges, options, taskOf);
  const outcomeRules = induceOutcomeRules(samples, options.derivedPaths);
  const invariants = deriveInvariants(fields, options.maxValues);
  const perTask = taskRanges.taskRanges(globalRanges);
  const evidence: Evidence[] = pending.map((e) => ({
    ...e,
    attribution: attributions.get(e.id) ?? { status: "counterexample", rule: "" },
  }));
  return {
    manifest: {
      version: WORLDBOOK_VERSION,
      families: [...new Set(sorted.map((s) => s.family))].sort(),
      sources: [...new Set(sorted.map((s) => traceSource(s.source)))].sort(),
      episodes: seenEpisodes.size,
      transitions: sorted.length,
      options,
      ...(extras.split ? { split: extras.split } : {}),
    },
    schemas: inferSchemas(actions, fields),
    evidence,
    rules,
    outcomeRules,
    invariants: perTask.length > 0 ? { ...invariants, taskRanges: perTask } : invariants,
    starts,
    tasks: tasksOf([...taskIds].sort(), sorted, extras.tasks ?? []),
    contracts: contracts.contracts(),
    notes: ruleNotes(rules, outcomeRules),
  };
}
