import { z } from "zod";
import type { Observation } from "./observation.ts";
import type { Task } from "./task.ts";

/**
 * A structured view of an environment's state, read from its observation: flat dotted paths
 * (`agent.row`, `cell.3.5`, `el.e12.checked`) to JSON scalars or lists of scalars. A path that is not
 * present is unknown, never false or empty. World models work on this view and render observations back.
 */
export const StateScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const StateValueSchema = z.union([StateScalarSchema, z.array(StateScalarSchema)]);
export type StateScalar = z.infer<typeof StateScalarSchema>;
export type StateValue = z.infer<typeof StateValueSchema>;
export const StateRecordSchema = z.record(z.string(), StateValueSchema);
export type StateRecord = Record<string, StateValue>;

/** The declared type of a state field, as a worldbook's state schema records it. */
export const StateFieldTypeSchema = z.enum(["string", "number", "boolean", "null", "list"]);
export type StateFieldType = z.infer<typeof StateFieldTypeSchema>;

export const StateFieldSpecSchema = z
  .object({
    /** A dotted path, or a pattern with `*` for one path segment (`cell.*.*`, `el.*.checked`). */
    path: z.string().min(1),
    type: StateFieldTypeSchema,
    /** Whether actions can change it (false: fixed for an episode, e.g. the map or the instruction). */
    mutable: z.boolean(),
    default: StateValueSchema.optional(),
  })
  .strict();
export type StateFieldSpec = z.infer<typeof StateFieldSpecSchema>;

/** How one family turns observations into states and states back into observations. */
export interface StateViewer {
  readonly family: string;
  /** The fields this family's views can hold (patterns allowed). */
  readonly fields: ReadonlyArray<StateFieldSpec>;
  /** The structured state an observation shows. Pure: the same observation gives the same record. */
  view(observation: Observation, task?: Task): StateRecord;
  /**
   * An observation in the family's own format for `state`. `previous` is the observation the state was
   * reached from (for what the state does not carry, e.g. the instruction or a screenshot, which is
   * dropped). Rendering the view of a real observation gives that observation's text fields back.
   */
  render(state: StateRecord, previous: Observation, task?: Task): Observation;
}
