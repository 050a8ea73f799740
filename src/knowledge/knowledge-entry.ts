import { z } from "zod";

/** Which episodes and continuations produced an entry (accumulated over its versions). */
export const ProvenanceSchema = z.object({
  episodeIds: z.array(z.string()),
  continuationIds: z.array(z.string()),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/**
 * One version of the knowledge about one key. `fields` is structured (what a policy reads), `text` the
 * declarative summary (what a model or a person reads). Versions of a key count 1, 2, 3, ...
 */
export const KnowledgeEntrySchema = z.object({
  key: z.string().min(1),
  /** The training iteration that wrote this version. */
  epoch: z.number().int().nonnegative(),
  version: z.number().int().positive(),
  /** The writer that produced it (`statistical`, ...). */
  writer: z.string().min(1),
  fields: z.record(z.string(), z.unknown()),
  text: z.string(),
  provenance: ProvenanceSchema,
});
export type KnowledgeEntry = z.infer<typeof KnowledgeEntrySchema>;

/** The content a writer proposes; the table adds key, version and epoch. */
export interface KnowledgeDraft {
  writer: string;
  fields: Record<string, unknown>;
  text: string;
  provenance: Provenance;
}

/** Union of two provenances, order kept (first occurrence), duplicates dropped. */
export function mergeProvenance(a: Provenance | undefined, b: Provenance): Provenance {
  const union = (x: ReadonlyArray<string>, y: ReadonlyArray<string>) => [...new Set([...x, ...y])];
  return {
    episodeIds: union(a?.episodeIds ?? [], b.episodeIds),
    continuationIds: union(a?.continuationIds ?? [], b.continuationIds),
  };
}
