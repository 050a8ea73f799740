import { z } from "zod";
import {
  ActionSchema,
  type HistoryEntry,
  type Observation,
  ObservationSchema,
  type PolicyContext,
  type Task,
} from "../core/index.ts";

/**
 * The policy context an exported SFT record was produced from, carried in the record's `context`
 * field: the task's public fields, the step, the current observation and every earlier step of the
 * path (observation, action, raw output), exactly as the search handed them to the policy — so a
 * policy trained from the file sees the context (candidates, features) it meets when it plays,
 * whatever its family reads (the terminal's earlier outputs and `data`, the web's earlier pages).
 * Screenshots are left out (the record references its images); the task's verifier, oracle and
 * parameters are left out (they can hold the answer).
 */
export const POLICY_CONTEXT_FORMAT = "rehearsal-policy-context";
export const POLICY_CONTEXT_VERSION = 1;

const ContextObservationSchema = ObservationSchema.omit({ screenshot: true }).strict();

export const ExportedContextSchema = z
  .object({
    format: z.literal(POLICY_CONTEXT_FORMAT),
    version: z.literal(POLICY_CONTEXT_VERSION),
    task: z
      .object({
        id: z.string().min(1),
        instruction: z.string(),
        family: z.string().min(1),
        split: z.enum(["train", "heldout"]),
        tier: z.string().optional(),
      })
      .strict(),
    stepIndex: z.number().int().nonnegative(),
    observation: ContextObservationSchema,
    history: z.array(
      z
        .object({ observation: ContextObservationSchema, action: ActionSchema.nullable(), raw: z.string() })
        .strict(),
    ),
  })
  .strict();
export type ExportedContext = z.infer<typeof ExportedContextSchema>;

function withoutScreenshot(o: Observation): Omit<Observation, "screenshot"> {
  const { screenshot: _shot, ...rest } = o;
  return rest;
}

/** The `context` field of one exported step (validated). */
export function exportedContext(
  task: Task,
  stepIndex: number,
  observation: Observation,
  history: ReadonlyArray<HistoryEntry>,
): ExportedContext {
  return ExportedContextSchema.parse({
    format: POLICY_CONTEXT_FORMAT,
    version: POLICY_CONTEXT_VERSION,
    task: {
      id: task.id,
      instruction: task.instruction,
      family: task.family,
      split: task.split,
      ...(task.tier !== undefined ? { tier: task.tier } : {}),
    },
    stepIndex,
    observation: withoutScreenshot(observation),
    history: history.map((h) => ({
      observation: withoutScreenshot(h.observation),
      action: h.action,
      raw: h.raw,
    })),
  });
}

/** The policy context a record's `context` field holds (the task without its verifier: `exported`). */
export function policyContextOf(context: ExportedContext): PolicyContext {
  const task: Task = {
    ...context.task,
    seed: 0,
    verifier: { kind: "exported" },
    tags: [],
  };
  return {
    task,
    observation: context.observation,
    history: context.history,
    stepIndex: context.stepIndex,
  };
}
