/** Subtrees the shell builds itself (command stubs, devices): never saved, never compared. */
export const SYSTEM_ROOTS = ["/bin", "/usr", "/dev", "/proc"];

const SYSTEM_PREFIXES = SYSTEM_ROOTS.map((r) => `${r}/`);

/** The second character of every system root (`b`, `u`, `d`, `p`): any other path is not one. */
const ROOT_INITIALS = new Set(SYSTEM_ROOTS.map((r) => r.charCodeAt(1)));

export function isSystemPath(path: string): boolean {
  if (!ROOT_INITIALS.has(path.charCodeAt(1))) return false;
  for (let i = 0; i < SYSTEM_ROOTS.length; i++) {
    if (path === SYSTEM_ROOTS[i] || path.startsWith(SYSTEM_PREFIXES[i] as string)) return true;
  }
  return false;
}

/** True for a path under the command stubs (`/bin`, `/usr`), where a change can alter command lookup. */
export function isCommandPath(path: string): boolean {
  return path === "/bin" || path === "/usr" || path.startsWith("/bin/") || path.startsWith("/usr/");
}

/** The fixed clock of every terminal episode: 2024-01-01T00:00:00Z. */
export const FIXED_EPOCH_SECONDS = 1_704_067_200;
export const FIXED_DATE = new Date(FIXED_EPOCH_SECONDS * 1000);
