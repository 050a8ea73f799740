import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { extensionFor } from "./encode.ts";

/**
 * Content-addressed files beside the database: `artefacts/ab/abcdef….png`. A file is written to a temp
 * name, fsynced, renamed into place and its directory fsynced, so a referenced artefact is always whole
 * and durable before the row that references it commits. Writing the same content twice is a no-op.
 */
export interface ArtefactFiles {
  readonly root: string;
  pathFor(sha256: string, mime: string): string;
  /** Writes the file unless a complete one is already there. */
  write(sha256: string, mime: string, bytes: Uint8Array): void;
  read(sha256: string, mime: string): Uint8Array | undefined;
}

/** fsync a directory so a rename in it is durable; a no-op where directories cannot be fsynced. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Directories cannot be opened or fsynced on some platforms (Windows); the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Writes `bytes` to the temporary file `temp`, fsyncs it and renames it over `target` (a reader sees the old
 * file or the whole new one). The caller fsyncs the directory and removes `temp` if this throws.
 */
export function writeFileDurably(target: string, temp: string, bytes: Uint8Array): void {
  const fd = openSync(temp, "w");
  try {
    let offset = 0;
    while (offset < bytes.byteLength) {
      offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, target);
}

function sizeOf(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

export function createArtefactFiles(root: string): ArtefactFiles {
  const knownDirs = new Set<string>();
  let tempCounter = 0;

  function ensureDir(sub: string): string {
    const dir = join(root, sub);
    if (!knownDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      fsyncDirectory(root);
      knownDirs.add(dir);
    }
    return dir;
  }

  function pathFor(sha256: string, mime: string): string {
    return join(root, sha256.slice(0, 2), `${sha256}.${extensionFor(mime)}`);
  }

  return {
    root,
    pathFor,
    write(sha256, mime, bytes) {
      const target = pathFor(sha256, mime);
      if (sizeOf(target) === bytes.byteLength) return;
      const dir = ensureDir(sha256.slice(0, 2));
      tempCounter += 1;
      writeFileDurably(target, `${target}.tmp-${process.pid}-${tempCounter}`, bytes);
      fsyncDirectory(dir);
    },
    read(sha256, mime) {
      try {
        const buf = readFileSync(pathFor(sha256, mime));
        return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
  };
}
