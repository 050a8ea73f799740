import { canonicalJson, sha256Hex } from "../../core/hash.ts";
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
  return { cwd, lastExitCode, tree: entries.map((e) => ({ ...nodeOf(e).node })) };
}

/**
 * The tree of `entries` (frozen nodes) and its `canonicalJson`, built from each entry's node and node
 * text kept from earlier calls: an unchanged file is not hashed again, and no unchanged node is
 * serialized again.
 */
export function treeOf(entries: ReadonlyArray<SavedEntry>): { tree: TreeNode[]; treeJson: string } {
  const tree: TreeNode[] = [];
  const parts: string[] = [];
  for (const e of entries) {
    const { node, json } = nodeOf(e);
    tree.push(node);
    parts.push(json);
  }
  return { tree: Object.freeze(tree) as TreeNode[], treeJson: `[${parts.join(",")}]` };
}

interface KeptNode {
  path: string;
  kind: SavedEntry["kind"];
  /** The entry's content (text, base64 or link target) the node was computed from. */
  source: string;
  node: TreeNode;
  /** `canonicalJson(node)`. */
  json: string;
}

/**
 * The node (frozen) and node text of saved entries already seen, with what they were computed from (the
 * sandbox hands out the same entry object while an entry is unchanged; a changed field is computed
 * again), so an unchanged file is not hashed again.
 */
const keptNodes = new WeakMap<SavedEntry, KeptNode>();

function nodeOf(e: SavedEntry): KeptNode {
  const source = (e.kind === "symlink" ? e.target : (e.base64 ?? e.text)) ?? "";
  const kept = keptNodes.get(e);
  if (kept !== undefined && kept.path === e.path && kept.kind === e.kind && kept.source === source)
    return kept;
  let node: TreeNode;
  if (e.kind === "dir") node = { path: e.path, kind: "dir" };
  else if (e.kind === "symlink") node = { path: e.path, kind: "symlink", target: source };
  else {
    const bytes = bytesOf(e);
    node = { path: e.path, kind: "file", size: bytes.length, sha256: sha256Hex(bytes).slice(0, 16) };
  }
  const made: KeptNode = {
    path: e.path,
    kind: e.kind,
    source,
    node: Object.freeze(node),
    json: canonicalJson(node),
  };
  keptNodes.set(e, made);
  return made;
}

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
