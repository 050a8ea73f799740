import { z } from "zod";
import { ActionSchema, ObservationSchema, StateRecordSchema } from "../core/index.ts";

/**
 * One recorded transition, the unit world models are built from and judged on. The JSONL trace format
 * (docs/traces.md) is one `TraceStep` per line; imports from the run store produce the same records.
 */
export const TraceStepSchema = z
  .object({
    /** The episode this step belongs to (a trajectory id when imported from the run store). */
    episodeId: z.string().min(1),
    taskId: z.string().min(1),
    family: z.string().min(1),
    /** The seed the episode was reset with, when known (W2R replays need it). */
    seed: z.number().int().optional(),
    /** 0-based index of the step within its episode. */
    step: z.number().int().nonnegative(),
    observation: ObservationSchema,
    action: ActionSchema,
    nextObservation: ObservationSchema,
    reward: z.number(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    /** The environment's structured state before and after, when the trace carries it. */
    state: StateRecordSchema.optional(),
    nextState: StateRecordSchema.optional(),
    /** Where the step came from: `run:<runId>` or `file:<path>:<line>`. */
    source: z.string().min(1),
  })
  .strict();
export type TraceStep = z.infer<typeof TraceStepSchema>;

/** The split a whole episode is assigned to: build (construction), validation, test (held out). */
export const TraceSplitSchema = z.enum(["build", "validation", "test"]);
export type TraceSplit = z.infer<typeof TraceSplitSchema>;
