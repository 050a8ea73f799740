import { join } from "node:path";
import { canonicalJson, sha256Hex } from "../../core/index.ts";
import type { Worldbook } from "./schema.ts";

export const MANIFEST_FILE = "manifest.json";

/** The worldbook's files (name → canonical JSON text with a final newline), manifest excluded. */
export function worldbookFileTexts(wb: Worldbook): Record<string, string> {
  const text = (value: unknown) => `${canonicalJson(value)}\n`;
  return {
    "schemas.json": text(wb.schemas),
    "evidence.json": text(wb.evidence),
    "rules.json": text({ rules: wb.rules, outcomeRules: wb.outcomeRules }),
    "invariants.json": text(wb.invariants),
    "starts.json": text(wb.starts),
    "tasks.json": text(wb.tasks),
    ...(wb.reviews ? { "reviews.json": text(wb.reviews) } : {}),
    ...(wb.contracts ? { "contracts.json": text(wb.contracts) } : {}),
    ...(wb.notes ? { "notes.json": text(wb.notes) } : {}),
  };
}

/** The content hash the manifest records for a file's text. */
export function fileHash(text: string): string {
  return sha256Hex(text);
}

/** The held-out splits whose traces `worldbook build` writes beside the worldbook, for `worldbook eval`. */
export const HELDOUT_SPLITS = ["validation", "test"] as const;
export type HeldoutSplit = (typeof HELDOUT_SPLITS)[number];

/** Where a built worldbook keeps a held-out split's traces (JSONL, docs/traces.md): `DIR/heldout/<split>.jsonl`. */
export function heldoutTracePath(dir: string, split: HeldoutSplit): string {
  return join(dir, "heldout", `${split}.jsonl`);
}
