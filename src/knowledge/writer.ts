import type { Continuation, Transition } from "./experience-buffer.ts";
import {
  type KnowledgeDraft,
  type KnowledgeEntry,
  mergeProvenance,
  type Provenance,
} from "./knowledge-entry.ts";

/** (a) State understanding: aggregate continuations from one state (Monte Carlo). */
export interface UnderstandContext {
  key: string;
  epoch: number;
  /** The entry as read (undefined for a new state). */
  prior: KnowledgeEntry | undefined;
  continuations: ReadonlyArray<Continuation>;
}

/** (b) Bootstrapping: one-step (H = 1) continuations plus the successors' current knowledge (TD). */
export interface BootstrapContext extends UnderstandContext {
  /** The latest entry of a successor state, if any. */
  successor(key: string): KnowledgeEntry | undefined;
}

/** One finished episode, as trajectory reflection sees it. */
export interface ReflectedEpisode {
  id: string;
  taskId: string;
  transitions: ReadonlyArray<Transition>;
  success: boolean;
  return: number;
}

/** (c) Trajectory-level reflection (the baseline): knowledge keyed by the path, not by the state. */
export interface ReflectContext {
  epoch: number;
  episode: ReflectedEpisode;
  /** The key of the entry about step `step` of the path. */
  pathKey(step: number): string;
  prior(key: string): KnowledgeEntry | undefined;
}

export interface KeyedDraft {
  key: string;
  /** The version the draft was computed from (for the table's compare-and-set). */
  expectedVersion: number;
  draft: KnowledgeDraft;
}

/**
 * Turns experience into knowledge. Each method returns drafts for the table, or null / [] to skip (an
 * output marked skip is discarded). Writers never write the table themselves: the loop does, with a
 * compare-and-set on the version they read.
 */
export interface KnowledgeWriter {
  readonly name: string;
  understand(context: UnderstandContext): Promise<KnowledgeDraft | null>;
  bootstrap(context: BootstrapContext): Promise<KnowledgeDraft | null>;
  reflectTrajectory(context: ReflectContext): Promise<KeyedDraft[]>;
}

/** How an update used the buffer: `mc` (state understanding) or `td` (bootstrapping). */
export type UpdateTag = "mc" | "td";

/** The continuations an update aggregates: non-empty, and not yet in the prior's provenance under `tag`. */
export function freshContinuations(
  prior: KnowledgeEntry | undefined,
  all: ReadonlyArray<Continuation>,
  tag: UpdateTag,
): Continuation[] {
  const seen = new Set(prior?.provenance.continuationIds ?? []);
  return all.filter((c) => !seen.has(`${tag}:${c.id}`) && c.transitions.length > 0);
}

/** The prior's provenance plus the episodes and (tagged) continuations an update used. */
export function updateProvenance(
  prior: KnowledgeEntry | undefined,
  used: ReadonlyArray<Continuation>,
  tag: UpdateTag,
): Provenance {
  return mergeProvenance(prior?.provenance, {
    episodeIds: used.map((c) => c.episodeId),
    continuationIds: used.map((c) => `${tag}:${c.id}`),
  });
}
