import { type FsStat, InMemoryFs } from "just-bash";
import { FIXED_DATE, isCommandPath } from "./system-paths.ts";

/** Every `InMemoryFs` method that changes the file system (each bumps `FixedClockFs.version`). */
const MUTATORS = [
  "writeFile",
  "writeFileSync",
  "writeFileLazy",
  "appendFile",
  "mkdir",
  "mkdirSync",
  "rm",
  "cp",
  "mv",
  "chmod",
  "symlink",
  "link",
  "utimes",
] as const satisfies ReadonlyArray<keyof InMemoryFs>;

/**
 * Reports every modification time as the fixed clock (`ls -l`, `stat`, `find -newer` are stable), and
 * counts changes: `version` moves on every call of a mutating method (before and after it), so a saved
 * copy of the tree stays valid while the version is unchanged.
 */
export class FixedClockFs extends InMemoryFs {
  version = 0;
  /** Set once tracking is on (after the shell built its layout). */
  tracking = false;
  /**
   * Sticky: a change that the fast path does not model happened (a link, a mode change, a write under
   * the command stubs), so every later command goes to just-bash.
   */
  unusual = false;
  /**
   * The paths given to mutating calls since the last `takeChanges()` (each changed itself and its
   * subtree only), or "all" when that is not known: at first, after a path that is not a plain
   * absolute one, and for good once a link exists (a write through a link changes another path).
   */
  private changed: Set<string> | "all" = "all";
  private linked = false;

  /** The changed paths since the last call (see `changed`), starting a new count. */
  takeChanges(): Set<string> | "all" {
    const changed = this.changed;
    this.changed = this.linked ? "all" : new Set();
    return changed;
  }

  private noteChange(name: string, args: unknown[]): void {
    if (name === "symlink" || name === "link") this.linked = true;
    if (this.linked) this.changed = "all";
    if (this.changed === "all") return;
    for (const p of name === "cp" || name === "mv" ? args.slice(0, 2) : args.slice(0, 1)) {
      if (typeof p !== "string" || !p.startsWith("/") || /\/\.\.?(\/|$)|\/\//.test(p)) {
        this.changed = "all";
        return;
      }
      this.changed.add(p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p);
    }
  }

  constructor(...args: ConstructorParameters<typeof InMemoryFs>) {
    super(...args);
    const methods = this as unknown as Record<string, (...a: unknown[]) => unknown>;
    for (const name of MUTATORS) {
      const original = methods[name]?.bind(this);
      if (!original) continue;
      methods[name] = (...a: unknown[]) => {
        this.version++;
        this.noteChange(name, a);
        if (this.tracking && !this.unusual) this.unusual = isUnusualChange(name, a);
        const result = original(...a);
        if (result instanceof Promise) return result.finally(() => this.version++);
        this.version++;
        return result;
      };
    }
  }

  /**
   * The entry stored under `path` itself, no symlink on the way resolved. The in-memory file system
   * writes through a path's own words (`echo x > link/f` stores `link/f` even when `link` is a symlink)
   * but reads through its symlinks, so such an entry cannot be read by `lstat` (it reaches another path
   * or none); this reads its map directly, or returns undefined when the map or the entry does not have
   * the expected shape (then the caller reads through the public calls).
   */
  storedEntry(path: string): StoredEntry | undefined {
    const data = (this as unknown as { data?: unknown }).data;
    if (!(data instanceof Map)) return undefined;
    const e = data.get(path) as { type?: unknown; mode?: unknown; content?: unknown; target?: unknown };
    if (e === undefined || typeof e.mode !== "number") return undefined;
    if (e.type === "directory") return { kind: "dir", mode: e.mode };
    if (e.type === "symlink" && typeof e.target === "string")
      return { kind: "symlink", mode: e.mode, target: e.target };
    if (e.type === "file" && e.content instanceof Uint8Array)
      return { kind: "file", mode: e.mode, content: e.content };
    return undefined;
  }

  /**
   * The kind of entry stored under the normalized `path` (null: none), read from the map without the
   * public calls' path normalizing and symlink walk, which give the same answer while the file system has
   * never held a link; undefined once it has, or when the map or the entry does not have the expected
   * shape (then the caller asks `lstat`).
   */
  kindAt(path: string): "file" | "dir" | null | undefined {
    if (this.linked) return undefined;
    const data = (this as unknown as { data?: unknown }).data;
    if (!(data instanceof Map)) return undefined;
    const type = (data.get(path) as { type?: unknown } | undefined)?.type;
    return type === undefined ? null : type === "directory" ? "dir" : type === "file" ? "file" : undefined;
  }

  /** The stored content of the file under the normalized `path` (see `kindAt`), or undefined. */
  contentAt(path: string): Uint8Array | undefined {
    if (this.linked) return undefined;
    const data = (this as unknown as { data?: unknown }).data;
    const content =
      data instanceof Map ? (data.get(path) as { content?: unknown } | undefined)?.content : undefined;
    return content instanceof Uint8Array ? content : undefined;
  }

  /** True when an entry is stored under `path` itself (true when the map is not the expected shape). */
  hasStored(path: string): boolean {
    const data = (this as unknown as { data?: unknown }).data;
    return data instanceof Map ? data.has(path) : true;
  }

  override async stat(path: string): Promise<FsStat> {
    return { ...(await super.stat(path)), mtime: FIXED_DATE };
  }
  override async lstat(path: string): Promise<FsStat> {
    return { ...(await super.lstat(path)), mtime: FIXED_DATE };
  }
}

/** One stored entry (`FixedClockFs.storedEntry`): a file's content is the stored array itself. */
export type StoredEntry =
  | { kind: "dir"; mode: number }
  | { kind: "symlink"; mode: number; target: string }
  | { kind: "file"; mode: number; content: Uint8Array };

/** True when `path` is one of `roots` or inside one. */
export function isUnder(path: string, roots: Set<string>): boolean {
  for (const root of roots)
    if (path === root || path.startsWith(root === "/" ? "/" : `${root}/`)) return true;
  return false;
}

/** A change outside what the fast path models (see `FixedClockFs.unusual`). */
function isUnusualChange(name: string, args: unknown[]): boolean {
  if (name === "symlink" || name === "link" || name === "chmod") return true;
  const paths = name === "cp" || name === "mv" ? args.slice(0, 2) : args.slice(0, 1);
  return paths.some((p) => typeof p !== "string" || isCommandPath(p) || /\/\.\.?(\/|$)|\/\//.test(p));
}
