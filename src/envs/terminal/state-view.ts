import { sha256Hex } from "../../core/hash.ts";
import type { SavedEntry } from "./sandbox.ts";

/** One node of the structured file tree: files carry their size in bytes and a content digest. */
export interface TreeNode {
  path: string;
  kind: SavedEntry["kind"];
  size?: number;
  sha256?: string;
  target?: string;
}

/** The structured state the world-model layer reads: file tree, working directory, last exit code. */
export interface TerminalStateView {
  cwd: string;
  lastExitCode: number | null;
  tree: TreeNode[];
}

function bytesOf(e: SavedEntry): Buffer {
  return e.base64 !== undefined ? Buffer.from(e.base64, "base64") : Buffer.from(e.text ?? "", "utf8");
}

/** The structured view of a saved file system (digests are the first 16 hex digits of sha256). */
export function stateViewOf(
  entries: ReadonlyArray<SavedEntry>,
  cwd: string,
  lastExitCode: number | null,
): TerminalStateView {
  const tree = entries.map((e): TreeNode => {
    if (e.kind === "dir") return { path: e.path, kind: "dir" };
    if (e.kind === "symlink") return { path: e.path, kind: "symlink", target: e.target ?? "" };
    const source = e.base64 ?? e.text ?? "";
    let file = fileDigests.get(e);
    if (file?.source !== source) {
      const bytes = bytesOf(e);
      file = { source, size: bytes.length, sha256: sha256Hex(bytes).slice(0, 16) };
      fileDigests.set(e, file);
    }
    return { path: e.path, kind: "file", size: file.size, sha256: file.sha256 };
  });
  return { cwd, lastExitCode, tree };
}

/**
 * Size and digest of saved file entries already seen, with the content they were computed from (the
 * sandbox hands out the same entry object while a file is unchanged), so an unchanged file is not
 * hashed again.
 */
const fileDigests = new WeakMap<SavedEntry, { source: string; size: number; sha256: string }>();

/** Read-only access to a final file system, for verifiers. */
export class FsView {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>();

  constructor(entries: ReadonlyArray<SavedEntry>) {
    for (const e of entries) {
      if (e.kind === "dir") this.dirs.add(e.path);
      else if (e.kind === "file") this.files.set(e.path, bytesOf(e).toString("utf8"));
    }
  }

  /** The file's text, or undefined when there is no such file. */
  read(path: string): string | undefined {
    return this.files.get(path);
  }

  exists(path: string): boolean {
    return this.files.has(path) || this.dirs.has(path);
  }

  /** Paths of files under `dir` (recursively), sorted. */
  filesUnder(dir: string): string[] {
    const prefix = dir.endsWith("/") ? dir : `${dir}/`;
    return [...this.files.keys()].filter((p) => p.startsWith(prefix)).sort();
  }
}
