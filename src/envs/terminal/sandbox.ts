import { AsyncLocalStorage } from "node:async_hooks";
import { Bash, BashTransformPipeline, type CustomCommand, type TransformPlugin } from "just-bash";
import type { Random } from "../../core/random.ts";
import type { TerminalLimits } from "./config.ts";
import {
  type Baseline,
  baselineOf,
  type FastPathState,
  fastPathStateOf,
  runFastPath,
  unchanged,
} from "./fast-path.ts";
import { parentOf } from "./fast-path-commands.ts";
import { FixedClockFs, isUnder, type StoredEntry } from "./fixed-clock-fs.ts";
import { dateCommand } from "./fixed-date.ts";
import { fileSystemLimitOutcome } from "./fs-limit.ts";
import { isSystemPath } from "./system-paths.ts";

/**
 * The sandboxed shell: just-bash on an in-memory file system. Nothing reaches the real disk (the only
 * file system is `InMemoryFs`), the network (no `network` option, so `curl`/`wget` do not exist) or
 * real processes (every command is TypeScript). Determinism: file times read as the fixed clock, `date`
 * prints the fixed clock, `sleep` returns at once, and `$RANDOM` and awk's `rand()` read from the episode's
 * seeded stream.
 */

export { formatFixedDate } from "./fixed-date.ts";
export { FIXED_EPOCH_SECONDS } from "./system-paths.ts";

interface AstNode {
  type?: unknown;
  [key: string]: unknown;
}

/** Replaces every `$RANDOM` / `$SECONDS` (words and arithmetic) by a literal from `next()`. */
function replaceSpecials(node: unknown, next: () => number): unknown {
  if (Array.isArray(node)) return node.map((n) => replaceSpecials(n, next));
  if (node === null || typeof node !== "object") return node;
  const n = node as AstNode;
  const name = n.type === "ParameterExpansion" && n.operation == null ? n.parameter : undefined;
  if (name === "RANDOM") return { type: "Literal", value: String(next()) };
  if (name === "SECONDS") return { type: "Literal", value: "0" };
  if ((n.type === "ArithVariable" || n.type === "ArithSpecialVar") && n.name === "RANDOM")
    return { type: "ArithNumber", value: next() };
  if ((n.type === "ArithVariable" || n.type === "ArithSpecialVar") && n.name === "SECONDS")
    return { type: "ArithNumber", value: 0 };
  const out: AstNode = {};
  for (const [k, v] of Object.entries(n)) out[k] = replaceSpecials(v, next);
  return out;
}

/** Holds the random stream of the current command (the episode's, swapped in per step). */
class SeededSpecials implements TransformPlugin {
  readonly name = "rehearsal-seeded-specials";
  random: Random | undefined;
  transform(context: Parameters<TransformPlugin["transform"]>[0]) {
    const random = this.random;
    const next = () => (random ? random.int(32768) : 0);
    return { ast: replaceSpecials(context.ast, next) as typeof context.ast };
  }
}

/**
 * The stream `Math.random` reads while a command that mentions awk runs (awk's `rand()` calls it, and
 * just-bash offers no way to seed it): a stream derived from one draw of the episode's, so other
 * commands leave the episode stream as before. The dispatcher is installed once; outside such a
 * command it is the original `Math.random`. Async context, not a swapped global, so interleaved
 * commands of several environments each draw from their own stream. awk's code is loaded once per
 * process before the first such command, so that loading it draws nothing from a command's stream.
 */
const commandRandom = new AsyncLocalStorage<Random>();
let dispatcherInstalled = false;
let awkLoaded = false;
/**
 * awk commands running now. The async context is enabled only while one runs: on Node 20 an enabled
 * `AsyncLocalStorage` installs promise hooks that tax every promise of the process, and the shell is
 * promise-heavy, so it is disabled again when the last one ends.
 */
let awkRunning = 0;

/** Runs `exec` with `random` as the stream `Math.random` reads (see `commandRandom`). */
async function withCommandRandom<T>(random: Random, exec: () => Promise<T>): Promise<T> {
  awkRunning++;
  try {
    return await commandRandom.run(random, exec);
  } finally {
    if (--awkRunning === 0) commandRandom.disable();
  }
}

function installRandomDispatcher(): void {
  if (dispatcherInstalled) return;
  dispatcherInstalled = true;
  const original = Math.random;
  Math.random = () => {
    const random = commandRandom.getStore();
    return random ? random.next() : original();
  };
}

/** One file system entry as saved in snapshots (text when it is valid UTF-8, otherwise base64). */
export interface SavedEntry {
  path: string;
  kind: "file" | "dir" | "symlink";
  mode: number;
  text?: string;
  base64?: string;
  target?: string;
}

/** The result of one command. */
export interface ShellOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  env: Record<string, string>;
  /** Which limit stopped the command, when one did. */
  stoppedBy?: "budget" | "timeout" | "filesystem";
  /** Set when the fast path (`fast-path.ts`) answered instead of just-bash. */
  fast?: true;
}

export { isSystemPath, SYSTEM_ROOTS } from "./system-paths.ts";

const BUDGET_PATTERN =
  /too many commands|maximum recursion depth|iteration limit|exceeded maximum iterations|limit exceeded|exceeded (its )?execution deadline|execution timeout|maximum .* exceeded/i;

/**
 * True when just-bash's script normalizing (each line's leading whitespace trimmed, here-doc bodies
 * kept) would return `script` unchanged: one line that starts with no whitespace. Such a script is run
 * with `rawScript`, which skips that pass (a split, a scan and a regex per command) and nothing else.
 */
export function needsNoNormalizing(script: string): boolean {
  return !script.includes("\n") && script.trimStart() === script;
}

/** A shell whose file system starts from `entries` (the default layout is added by just-bash). */
export class SandboxShell {
  private readonly bash: Bash;
  private readonly fs: FixedClockFs;
  private readonly specials = new SeededSpecials();
  /** Applied only to commands that mention `RANDOM` or `SECONDS` (a transform costs a re-parse). */
  private readonly pipeline = new BashTransformPipeline().use(this.specials);

  /** just-bash's persistent shell state as the fast path reads it, or undefined when it is off. */
  private readonly fastState: FastPathState | undefined;
  /** The persistent settings the fast path assumes (as built), compared before each fast command. */
  private readonly fastBaseline: Baseline | undefined;

  constructor(
    private readonly limits: TerminalLimits,
    entries: ReadonlyArray<SavedEntry>,
    options: ShellOptions = {},
  ) {
    installRandomDispatcher();
    this.exact = options.exact === true;
    const fs = new FixedClockFs(undefined, { maxTotalBytes: limits.maxFileSystemBytes });
    this.fs = fs;
    const commands: CustomCommand[] = [dateCommand];
    this.bash = new Bash({
      fs,
      cwd: "/",
      customCommands: commands,
      sleep: async () => {},
      processInfo: { pid: 1000, ppid: 999, uid: 1000, gid: 1000 },
      defenseInDepth: limits.defenseInDepth,
      executionLimits: {
        maxCommandCount: limits.maxCommandCount,
        maxLoopIterations: limits.maxLoopIterations,
        maxAwkIterations: limits.maxLoopIterations,
        maxSedIterations: limits.maxLoopIterations,
        maxJqIterations: limits.maxLoopIterations,
        maxCallDepth: 64,
        maxExecutionTimeMs: limits.maxExecutionMs,
        maxOutputSize: limits.maxOutputBytes,
        maxStringLength: limits.maxOutputBytes,
        maxFileSystemBytes: limits.maxFileSystemBytes,
      },
    });
    this.pending = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const state = fastPathStateOf(this.bash);
    const plain = entries.every(
      (e) => e.mode === (e.kind === "dir" ? 0o755 : e.kind === "file" ? 0o644 : -1),
    );
    this.fastState = options.fastPath !== false && !limits.defenseInDepth && plain ? state : undefined;
    this.fastBaseline = this.fastState ? baselineOf(this.fastState) : undefined;
  }

  private readonly exact: boolean;
  /** The entries to create, by path (a directory or link before what is stored under its path). */
  private pending: SavedEntry[];

  /**
   * Finishes construction: creates the entries in path order, so that one stored under a symlink's
   * path (the file system writes through a path's own words, see `FixedClockFs.storedEntry`) is stored
   * there again, not in a directory made in the link's place; then the modes of links and directories.
   */
  async ready(): Promise<this> {
    const fs = this.fs;
    const placeholders: string[] = [];
    for (const e of this.pending) {
      // In an exact list (a `save()`), an entry whose parent is not listed (`mv f f/x` keeps `f/x` and
      // drops `f`) is written under empty placeholder files, removed at the end, so that no directory
      // is made in their place; otherwise missing parents are made as directories (`mkdir -p`).
      const missing: string[] = [];
      for (let at = parentOf(e.path); this.exact && at !== "/" && !fs.hasStored(at); at = parentOf(at))
        missing.push(at);
      for (const at of missing.reverse()) fs.writeFileSync(at, "");
      placeholders.push(...missing);
      if (e.kind === "dir") fs.mkdirSync(e.path, { recursive: true });
      else if (e.kind === "symlink") await fs.symlink(e.target ?? "", e.path);
      else {
        const content = e.base64 !== undefined ? Buffer.from(e.base64, "base64") : (e.text ?? "");
        fs.writeFileSync(e.path, content, undefined, { mode: e.mode });
      }
    }
    for (const at of placeholders.reverse()) await fs.rm(at);
    for (const e of this.pending)
      if (e.kind === "dir" || (e.kind === "symlink" && e.mode !== 0o777)) await fs.chmod(e.path, e.mode);
    this.pending = [];
    fs.tracking = true;
    return this;
  }

  /**
   * Runs one command line in `cwd` with exactly `env`. A command that hits a limit (command count,
   * loop iterations, output size, wall time) comes back with `stoppedBy`; a watchdog aborts a command
   * that outlives its time budget even if the interpreter misses its own deadline.
   */
  async run(
    command: string,
    cwd: string,
    env: Record<string, string>,
    random: Random,
  ): Promise<ShellOutcome> {
    const fast = this.fastState;
    const base = this.fastBaseline;
    if (fast !== undefined && base !== undefined && !this.fs.unusual && unchanged(fast, base)) {
      // A file-system limit (the only way a checked command can fail) throws before anything changed
      // (the in-memory file system checks it first), so just-bash then runs the command and words it.
      const outcome = await runFastPath(this.fs, fast, command, cwd, env).catch(() => undefined);
      if (outcome !== undefined) {
        this.fastCommands++;
        return { ...outcome, fast: true };
      }
    }
    this.specials.random = random;
    const script = /RANDOM|SECONDS/.test(command) ? this.pipeline.transform(command).script : command;
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => {
        resolve("timeout");
      }, this.limits.maxExecutionMs + this.limits.watchdogGraceMs);
    });
    try {
      // No abort signal (it slows every command): just-bash's own deadline stops the command; the
      // watchdog only guarantees that the step returns.
      const usesAwk = /awk/.test(command);
      if (usesAwk && !awkLoaded) {
        awkLoaded = true;
        await this.bash.exec("awk 'BEGIN {}'", { cwd: "/", env: {}, replaceEnv: true });
      }
      const options = { cwd, env, replaceEnv: true, rawScript: needsNoNormalizing(script) };
      const exec = usesAwk
        ? withCommandRandom(random.derive("awk", random.int(2 ** 30)), () => this.bash.exec(script, options))
        : this.bash.exec(script, options);
      const result = await Promise.race([exec, watchdog]).catch((e: unknown) => {
        const outcome = fileSystemLimitOutcome(e, env, this.limits.maxFileSystemBytes);
        if (outcome === undefined) throw e;
        return { fsLimit: outcome };
      });
      if (typeof result === "object" && "fsLimit" in result) return result.fsLimit;
      if (result === "timeout") {
        exec.catch(() => undefined);
        return {
          stdout: "",
          stderr: `the command ran past its ${this.limits.maxExecutionMs} ms budget and was stopped\n`,
          exitCode: 124,
          env,
          stoppedBy: "timeout",
        };
      }
      const stopped =
        (result.exitCode === 126 || result.exitCode === 124) && BUDGET_PATTERN.test(result.stderr);
      return {
        stdout: result.stdout,
        stderr: result.stderr,
        exitCode: result.exitCode,
        env: result.env,
        ...(stopped ? { stoppedBy: "budget" as const } : {}),
      };
    } finally {
      clearTimeout(timer);
      this.specials.random = undefined;
    }
  }

  /** Commands answered by the fast path (`fast-path.ts`) rather than just-bash. */
  fastCommands = 0;

  /** Moves whenever the file system changes; equal versions mean an identical tree. */
  get version(): number {
    return this.fs.version;
  }

  /**
   * Every non-system entry, sorted by path. The array is shared while the file system is unchanged
   * (read-only for callers: copy before editing); commands that only read cost no re-copy, and after a
   * change only the paths the mutating calls named (and their subtrees) are read again (`reread`
   * reads everything, for checks).
   */
  async save(options: { reread?: boolean } = {}): Promise<ReadonlyArray<SavedEntry>> {
    const version = this.fs.version;
    if (this.saved?.version === version && !options.reread) return this.saved.entries;
    const entries = await this.readEntries(options.reread === true);
    if (this.fs.version === version) this.saved = { version, entries };
    return entries;
  }

  private saved: { version: number; entries: ReadonlyArray<SavedEntry> } | undefined;

  private async readEntries(reread: boolean): Promise<SavedEntry[]> {
    const fs = this.fs;
    const taken = fs.takeChanges();
    const changed = reread ? "all" : taken;
    const paths = (fs.getAllPaths?.() ?? []).filter((p) => p !== "/" && !isSystemPath(p)).sort();
    const out: SavedEntry[] = [];
    const before = this.entries;
    for (const path of paths) {
      // An entry no mutating call reached since the last read is the entry read then.
      const same = changed === "all" ? undefined : before.get(path);
      if (same !== undefined && !isUnder(path, changed as Set<string>)) {
        out.push(same);
        continue;
      }
      const st = fs.storedEntry(path) ?? (await readStoredEntry(fs, path));
      if (st.kind === "symlink") out.push({ path, kind: "symlink", mode: st.mode, target: st.target });
      else if (st.kind === "dir") out.push({ path, kind: "dir", mode: st.mode });
      else {
        // The file system replaces a file's content array on every change (never edits it in place),
        // so an unchanged array with an unchanged mode is the same saved entry as last time.
        const content = st.content;
        const kept = this.files.get(path);
        if (kept !== undefined && kept.content === content && kept.entry.mode === st.mode) {
          out.push(kept.entry);
          continue;
        }
        const bytes = Buffer.from(content);
        const text = bytes.toString("utf8");
        const entry: SavedEntry = Buffer.from(text, "utf8").equals(bytes)
          ? { path, kind: "file", mode: st.mode, text }
          : { path, kind: "file", mode: st.mode, base64: bytes.toString("base64") };
        this.files.set(path, { content, entry });
        out.push(entry);
      }
    }
    if (this.files.size > out.length) {
      const live = new Set(out.map((e) => e.path));
      for (const path of this.files.keys()) if (!live.has(path)) this.files.delete(path);
    }
    this.entries = new Map(out.map((e) => [e.path, e]));
    return out;
  }

  /** The entries of the last read, by path. */
  private entries = new Map<string, SavedEntry>();

  /** The saved entry of each file by path, with the content array it was read from. */
  private readonly files = new Map<string, { content: Uint8Array; entry: SavedEntry }>();
}

/** An entry read through the public calls (when `FixedClockFs.storedEntry` cannot read it). */
async function readStoredEntry(fs: FixedClockFs, path: string): Promise<StoredEntry> {
  const st = await fs.lstat(path);
  if (st.isSymbolicLink) return { kind: "symlink", mode: st.mode, target: await fs.readlink(path) };
  if (st.isDirectory) return { kind: "dir", mode: st.mode };
  return { kind: "file", mode: st.mode, content: await fs.readFileBuffer(path) };
}

/**
 * `fastPath: false` sends every command to just-bash; `exact: true` takes the entries as a complete
 * `save()` (a parent that is not listed is not stored, as after `mv f f/x`), for restoring snapshots.
 */
export interface ShellOptions {
  fastPath?: boolean;
  exact?: boolean;
}

/** A ready shell over `entries` (see `ShellOptions`). */
export async function createSandboxShell(
  limits: TerminalLimits,
  entries: ReadonlyArray<SavedEntry>,
  options: ShellOptions = {},
): Promise<SandboxShell> {
  return new SandboxShell(limits, entries, options).ready();
}
