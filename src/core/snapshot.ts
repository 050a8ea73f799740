import type { z } from "zod";
import { type EnvironmentSnapshot, EnvironmentSnapshotSchema } from "./environment.ts";
import { UserError } from "./errors.ts";
import { canonicalJson, sha256Hex } from "./hash.ts";

/** The digest of an environment state: sha256 of canonical JSON of family, task and state. */
export function stateDigest(family: string, taskId: string, state: unknown): string {
  return sha256Hex(canonicalJson({ family, taskId, state }));
}

/**
 * Checks that `snapshot` was made by an environment of `family` and that its state parses with
 * `stateSchema`; otherwise a UserError with `code` that says to pass a value from snapshot().
 */
export function readSnapshot<S extends z.ZodType>(
  snapshot: EnvironmentSnapshot,
  family: string,
  stateSchema: S,
  code: string,
  label: string,
): { taskId: string; seed: number; state: z.infer<S> } {
  const outer = EnvironmentSnapshotSchema.safeParse(snapshot);
  const inner = stateSchema.safeParse(outer.success ? outer.data.state : undefined);
  if (!outer.success || !inner.success || outer.data.family !== family) {
    throw new UserError(
      code,
      `${label} restore got something that is not a ${label} snapshot; pass a value from snapshot().`,
    );
  }
  return { taskId: outer.data.taskId, seed: outer.data.seed, state: inner.data };
}
