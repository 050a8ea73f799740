import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { canonicalJson, sha256Hex, UserError } from "../../core/index.ts";
import { fileHash, MANIFEST_FILE, worldbookFileTexts } from "../worldbook/files.ts";
import { readWorldbook } from "../worldbook/read.ts";
import type { Worldbook } from "../worldbook/schema.ts";

/** Which worldbook a run used: its directory (absolute), the sha256 of its manifest, its one family. */
export interface WorldbookIdentity {
  dir: string;
  hash: string;
  family: string;
}

/**
 * The sha256 of the worldbook's `manifest.json` as `writeWorldbook` writes it (the manifest holds the
 * hash of every other file, so equal hashes mean equal books). Works on a book in memory too.
 */
export function worldbookHash(book: Worldbook): string {
  const files: Record<string, string> = {};
  for (const [name, text] of Object.entries(worldbookFileTexts(book))) files[name] = fileHash(text);
  return sha256Hex(`${canonicalJson({ ...book.manifest, files })}\n`);
}

/** The one family of a worldbook; a book of several families (or none) is a UserError. */
export function worldbookFamily(book: Worldbook, label = "the worldbook"): string {
  const families = book.manifest.families;
  if (families.length === 1) return families[0] as string;
  throw new UserError(
    "worldbook.families",
    `the world-model environment simulates one family per worldbook, but ${label} holds ${families.length === 0 ? "no family (no traces)" : `the families ${families.join(", ")}`}; build one worldbook per family from that family's traces`,
    { details: { families } },
  );
}

/**
 * Reads and validates the worldbook in `dir` (a missing or invalid directory is the `worldbook.invalid`
 * UserError of `readWorldbook`) and returns it with its identity.
 */
export function loadWorldbook(dir: string): { book: Worldbook; identity: WorldbookIdentity } {
  const absolute = resolve(dir);
  const book = readWorldbook(absolute);
  const family = worldbookFamily(book, `the worldbook ${absolute}`);
  return { book, identity: { dir: absolute, hash: worldbookHash(book), family } };
}

/** The identity of the worldbook in `dir` (read and validated). */
export function worldbookIdentity(dir: string): WorldbookIdentity {
  return loadWorldbook(dir).identity;
}

/**
 * The family a worldbook directory's manifest names, read cheaply and without validation (for
 * defaults such as the policy); undefined when it cannot tell. `loadWorldbook` does the real check.
 */
export function worldbookFamilyHint(dir: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as { families?: unknown };
    const families = manifest.families;
    return Array.isArray(families) && families.length === 1 && typeof families[0] === "string"
      ? families[0]
      : undefined;
  } catch {
    return undefined;
  }
}
