import { z } from "zod";
import type { Action } from "./action.ts";
import type { Observation } from "./observation.ts";
import { type ActionError, ActionErrorSchema } from "./observation.ts";
import type { Random } from "./random.ts";
import type { Task } from "./task.ts";

export interface HistoryEntry {
  observation: Observation;
  action: Action | null;
  raw: string;
}

export interface PolicyContext {
  task: Task;
  observation: Observation;
  /** Earlier steps of this episode, oldest first. */
  history: ReadonlyArray<HistoryEntry>;
  stepIndex: number;
  /** The environment's solver, when it has one (used by the oracle policy). */
  oracle?: () => Promise<Action | null>;
}

export const ProposeOptionsSchema = z.object({
  n: z.number().int().positive().max(1024),
  temperature: z.number().min(0).max(5),
});

export interface ProposeOptions {
  /** How many candidates to return. */
  n: number;
  /** 0 = greedy; 1 = the policy's natural distribution. */
  temperature: number;
  /** Per-call randomness, derived by the caller from stable keys. */
  random: Random;
  signal?: AbortSignal;
}

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const CandidateSchema = z.object({
  action: z.custom<Action>().nullable(),
  /** The raw model (or policy) text this candidate came from. */
  raw: z.string(),
  /** Set when `raw` did not parse to a valid action; `action` is then null. */
  parseError: ActionErrorSchema.optional(),
});

/** One proposed action. A candidate whose text did not parse has `action: null` and a `parseError`. */
export interface Candidate {
  action: Action | null;
  raw: string;
  parseError?: ActionError;
}

export interface Proposal {
  candidates: Candidate[];
  usage?: Usage;
}

/** A policy returns n candidate actions with their raw text. Frozen during search and evaluation. */
export interface Policy {
  readonly name: string;
  /** A policy that never waits (the random policy) makes it with `withSyncTwin` (see `Environment.step`). */
  propose(context: PolicyContext, options: ProposeOptions): Promise<Proposal>;
  close?(): Promise<void>;
}
