import { parseTerminalConfig, type SavedEntry } from "../../../src/envs/terminal/index.ts";

/** The shell's home, where the tests' file systems live. */
export const HOME = "/home/user";
/** The terminal's default limits. */
export const limits = parseTerminalConfig({}).limits;

/** Saved entries for building a shell's file system: a text file, a directory, a symlink. */
export const file = (path: string, text: string): SavedEntry => ({ path, kind: "file", mode: 0o644, text });
export const dir = (path: string): SavedEntry => ({ path, kind: "dir", mode: 0o755 });
export const link = (path: string, target: string): SavedEntry => ({
  path,
  kind: "symlink",
  mode: 0o777,
  target,
});
