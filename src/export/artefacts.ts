import { mkdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { EnvironmentError, sha256Hex } from "../core/index.ts";
import type { RunStore } from "../store/contract.ts";
import { writeFailure, writeFileAtomic } from "./output-file.ts";

/**
 * An artefact's bytes, checked against their content address: a missing or damaged artefact is an
 * EnvironmentError (the store on disk is incomplete or corrupted), never exported as is.
 */
export function readVerifiedArtefact(store: RunStore, sha256: string): Uint8Array {
  const bytes = store.getArtefact(sha256);
  if (!bytes)
    throw new EnvironmentError(
      "export.missing_artefact",
      `screenshot ${sha256} is missing from the store's artefacts; nothing was exported. Fix: restore the store's artefacts folder, or export with --observation axtree`,
      { details: { sha256 } },
    );
  const actual = sha256Hex(bytes);
  if (actual !== sha256)
    throw new EnvironmentError(
      "export.artefact_corrupt",
      `screenshot ${sha256} in the store is damaged (its bytes hash to ${actual}); nothing was exported. Fix: restore the store's artefacts folder from a backup, or export with --observation axtree`,
      { details: { sha256, actual } },
    );
  return bytes;
}

function hashOfFile(path: string): string | undefined {
  try {
    return sha256Hex(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** Files an export wrote, removed again when the export fails. */
export interface WrittenArtefacts {
  count: number;
  /** Removes what this copy created (files, then the folder if it made it). */
  remove(): void;
}

/**
 * Copies artefacts as `<dir>/<sha256><ext>`, each verified and written atomically. A file already there
 * with the right content is kept; one with other content is replaced. On failure everything this call
 * created is removed before the error is rethrown.
 */
export function copyVerifiedArtefacts(
  store: RunStore,
  shas: Iterable<string>,
  dir: string,
  ext: string,
  operation: string,
): WrittenArtefacts {
  const created: string[] = [];
  let madeDir: string | undefined;
  const remove = () => {
    for (const path of created) rmSync(path, { force: true });
    if (madeDir) {
      try {
        rmdirSync(madeDir);
      } catch {
        // Not empty: it holds files from an earlier export; leave them.
      }
    }
  };
  let count = 0;
  try {
    try {
      madeDir = mkdirSync(dir, { recursive: true }) ? dir : undefined;
    } catch (error) {
      throw writeFailure(operation, dir, error);
    }
    for (const sha of [...new Set(shas)].sort()) {
      const bytes = readVerifiedArtefact(store, sha);
      const target = join(dir, `${sha}${ext}`);
      count += 1;
      if (hashOfFile(target) === sha) continue;
      writeFileAtomic(target, operation, bytes);
      created.push(target);
    }
  } catch (error) {
    remove();
    throw error;
  }
  return { count, remove };
}
