import type { Action, Target } from "./action.ts";

/** The one shared fingerprint of candidates whose output did not parse: never explored. */
export const INVALID_FINGERPRINT = "invalid";

export interface FingerprintOptions {
  gridPx: number;
  typeTextChars: number;
}

function cell(v: number, gridPx: number): number {
  return Math.floor(v / gridPx);
}

function target(t: Target, gridPx: number): string {
  if (t.elementId !== undefined) return `#${t.elementId}`;
  return `${cell(t.x ?? 0, gridPx)},${cell(t.y ?? 0, gridPx)}`;
}

/** Whitespace-collapsed, lower-cased text cut to `chars` characters. */
export function normalizeTypedText(text: string, chars: number): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase().slice(0, chars);
}

/** Modifiers sorted, then the key: `Shift+Control+a` → `control+shift+a`. */
export function normalizeKeys(keys: string): string {
  if (keys === "+") return "+";
  const parts = keys.split("+").map((p) => p.toLowerCase());
  const key = parts.pop() ?? "";
  const alias: Record<string, string> = {
    ctrl: "control",
    cmd: "meta",
    command: "meta",
    option: "alt",
    esc: "escape",
  };
  const mods = parts.map((m) => alias[m] ?? m).sort();
  return [...mods, alias[key] ?? key].join("+");
}

/** A shell command for fingerprints: whitespace runs collapse to one space, ends trim, a trailing `;` drops. */
export function normalizeShellCommand(command: string): string {
  return command.replace(/\s+/g, " ").trim().replace(/\s*;$/, "");
}

/**
 * A coarse behaviour fingerprint: action type plus a discretised argument (SEEDS.md §1). Clicks by
 * element id when they name one, else by grid cell; drags by both endpoints; typing by normalised
 * text; keys by sorted modifiers; scrolls by direction (kept also when a position is given);
 * zero-argument actions by type alone. `null` (unparseable output) → the shared `invalid` bucket.
 */
export function fingerprintAction(action: Action | null, options: FingerprintOptions): string {
  if (action === null) return INVALID_FINGERPRINT;
  const { gridPx } = options;
  switch (action.type) {
    case "click":
    case "double_click":
    case "right_click":
    case "hover":
      return `${action.type}:${target(action as Target, gridPx)}`;
    case "drag":
      return `drag:${target(action.from, gridPx)}->${target(action.to, gridPx)}`;
    case "type":
      return `type:${normalizeTypedText(action.text, options.typeTextChars)}`;
    case "key":
      return `key:${normalizeKeys(action.keys)}`;
    case "scroll":
      return `scroll:${action.direction}`;
    case "select":
      return `select:#${action.elementId}=${normalizeTypedText(action.value, options.typeTextChars)}`;
    case "move":
      return `move:${action.direction}`;
    case "uci":
      return `uci:${action.move}`;
    case "shell":
      return `shell:${normalizeShellCommand(action.command)}`;
    case "wait":
    case "done":
    case "fail":
      return action.type;
  }
}
