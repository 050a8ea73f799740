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
  };
}

/** The content hash the manifest records for a file's text. */
export function fileHash(text: string): string {
  return sha256Hex(text);
}
