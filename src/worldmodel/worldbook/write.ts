import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, EnvironmentError } from "../../core/index.ts";
import { fileHash, MANIFEST_FILE, worldbookFileTexts } from "./files.ts";
import type { Manifest, Worldbook } from "./schema.ts";

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/**
 * Writes the worldbook to `dir` as canonical JSON files plus `manifest.json` with their sha256 hashes;
 * the same worldbook always gives the same bytes. Returns the manifest written.
 */
export function writeWorldbook(dir: string, wb: Worldbook): Manifest {
  const texts = worldbookFileTexts(wb);
  const files: Record<string, string> = {};
  for (const [name, text] of Object.entries(texts)) files[name] = fileHash(text);
  const manifest: Manifest = { ...wb.manifest, files };
  try {
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(texts)) writeAtomic(join(dir, name), text);
    // The manifest last: a directory with a manifest has every file it names.
    writeAtomic(join(dir, MANIFEST_FILE), `${canonicalJson(manifest)}\n`);
  } catch (cause) {
    throw new EnvironmentError(
      "worldbook.write_failed",
      `writeWorldbook(): could not write the worldbook to "${dir}": ${(cause as Error).message}. Check that the directory is writable and the disk has room.`,
      { cause },
    );
  }
  return manifest;
}
