import {
  closeSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { EnvironmentError, InternalError, type RehearsalError, UserError } from "../core/index.ts";
import { fsyncDirectory } from "../store/artefact-files.ts";

/**
 * The one file writer of every export. A file is written to a temporary name beside its target,
 * fsynced and renamed over the target at the end, so a reader sees the old file or the whole new one,
 * and a failure (full disk, I/O error, a check that fails half-way) removes the temporary file and
 * leaves the target untouched. A symlink is written through (its final target is replaced, the link
 * stays); a directory or a device as the target is refused with a UserError; a disk that is full or
 * failing is an EnvironmentError.
 */
export interface AtomicFile {
  /** The file that will be replaced: the requested path with symlinks resolved. */
  readonly path: string;
  write(chunk: string | Uint8Array): void;
  /** fsync, rename over the target, fsync the directory. */
  commit(): void;
  /** Removes the temporary file; the target is untouched. Idempotent; a no-op after commit. */
  abort(): void;
}

/** `--out -` and `--out /dev/stdout` mean standard output (not atomic, nothing to replace). */
export function isStdoutTarget(out: string | undefined): boolean {
  return out === undefined || out === "-" || out === "/dev/stdout";
}

const MAX_LINKS = 40;

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function deviceKind(s: Stats): string | undefined {
  if (s.isCharacterDevice()) return "character device";
  if (s.isBlockDevice()) return "block device";
  if (s.isFIFO()) return "named pipe";
  if (s.isSocket()) return "socket";
  return undefined;
}

/** Follows symlinks (also dangling ones: the link's target is created) to the path to replace. */
export function resolveOutputPath(out: string, operation = "export"): string {
  let path = resolve(out);
  const fsCall = <T>(call: () => T): T => {
    try {
      return call();
    } catch (error) {
      throw writeFailure(operation, path, error);
    }
  };
  for (let hops = 0; ; hops++) {
    const s = fsCall(() => lstatOrUndefined(path));
    if (!s?.isSymbolicLink()) {
      if (s?.isDirectory())
        throw new UserError(
          "export.out_is_directory",
          `--out ${out} is a directory; an export writes one file. Fix: name a file, e.g. --out ${join(out, "export.jsonl")}`,
          { details: { out, path } },
        );
      const kind = s ? deviceKind(s) : undefined;
      if (kind)
        throw new UserError(
          "export.out_device",
          `--out ${out} is a ${kind} (${path}), not a regular file; exports are written to a temporary file and renamed into place. Fix: name a regular file, or use --out - for standard output`,
          { details: { out, path, kind } },
        );
      return path;
    }
    if (hops >= MAX_LINKS)
      throw new UserError("export.out_link_loop", `--out ${out}: too many levels of symbolic links`, {
        details: { out },
      });
    path = resolve(
      dirname(path),
      fsCall(() => readlinkSync(path)),
    );
  }
}

const NO_SPACE = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EIO"]);
const NOT_ALLOWED = new Set(["EACCES", "EPERM", "EROFS", "ENOTDIR", "ENAMETOOLONG", "EEXIST"]);

/** The typed error for a failed file operation of an export. */
export function writeFailure(operation: string, path: string, error: unknown): RehearsalError {
  const code = (error as NodeJS.ErrnoException).code ?? "unknown";
  const reason = error instanceof Error ? error.message : String(error);
  const details = { path, errno: code };
  if (code === "EISDIR")
    return new UserError(
      "export.out_is_directory",
      `${operation}: ${path} is a directory. Fix: name a file`,
      { cause: error, details },
    );
  if (NOT_ALLOWED.has(code))
    return new UserError(
      "export.out_not_writable",
      `${operation}: cannot write ${path} (${reason}). Fix: choose a path in a directory you can write to`,
      { cause: error, details },
    );
  const fix = NO_SPACE.has(code)
    ? "free space on that disk (or raise the file size limit), or write to another disk with --out"
    : "check the disk and the path, then run the export again";
  return new EnvironmentError(
    "export.write_failed",
    `${operation}: writing ${path} failed (${reason}); nothing was written and the target is unchanged. Fix: ${fix}`,
    { cause: error, details },
  );
}

let tempCounter = 0;

/** Opens the temporary file for `out` (see AtomicFile). `operation` names the export in errors. */
export function openAtomicFile(out: string, operation: string): AtomicFile {
  const path = resolveOutputPath(out, operation);
  const dir = dirname(path);
  let fd: number | undefined;
  let temp = "";
  try {
    mkdirSync(dir, { recursive: true });
    temp = join(dir, `.${basename(path)}.${process.pid}-${++tempCounter}.tmp`);
    fd = openSync(temp, "wx");
    // Keep the permissions of the file being replaced.
    const existing = lstatOrUndefined(path);
    if (existing?.isFile()) fchmodSync(fd, existing.mode & 0o7777);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    if (fd !== undefined) rmSync(temp, { force: true });
    throw writeFailure(operation, path, error);
  }
  let state: "open" | "committed" | "aborted" = "open";
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closeSync(fd as number);
  };
  const abort = () => {
    if (state !== "open") return;
    state = "aborted";
    try {
      close();
    } catch {
      // Already failing; the temp file is removed below either way.
    }
    rmSync(temp, { force: true });
  };
  const guarded = (step: () => void) => {
    if (state !== "open")
      throw new InternalError("export.file_closed", `${operation}: ${path} was already ${state}`);
    try {
      step();
    } catch (error) {
      abort();
      throw writeFailure(operation, path, error);
    }
  };
  return {
    path,
    write(chunk) {
      guarded(() => {
        const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
        for (let off = 0; off < bytes.byteLength; )
          off += writeSync(fd as number, bytes, off, bytes.byteLength - off);
      });
    },
    commit() {
      guarded(() => {
        fsyncSync(fd as number);
        close();
        renameSync(temp, path);
      });
      state = "committed";
      fsyncDirectory(dir);
    },
    abort,
  };
}

/** Runs `produce` against a fresh AtomicFile and commits it; any error aborts it and is rethrown. */
export async function withAtomicFile<T>(
  out: string,
  operation: string,
  produce: (file: AtomicFile) => T | Promise<T>,
): Promise<T> {
  const file = openAtomicFile(out, operation);
  try {
    const result = await produce(file);
    file.commit();
    return result;
  } finally {
    file.abort();
  }
}

/** Writes `content` to `out` atomically; returns the path written (symlinks resolved). */
export function writeFileAtomic(out: string, operation: string, content: string | Uint8Array): string {
  const file = openAtomicFile(out, operation);
  try {
    file.write(content);
    file.commit();
    return file.path;
  } finally {
    file.abort();
  }
}
