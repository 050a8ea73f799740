const ALIASES: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  alt: "Alt",
  option: "Alt",
  shift: "Shift",
  meta: "Meta",
  cmd: "Meta",
  command: "Meta",
  super: "Meta",
  win: "Meta",
  esc: "Escape",
  escape: "Escape",
  enter: "Enter",
  return: "Enter",
  tab: "Tab",
  space: "Space",
  spacebar: "Space",
  backspace: "Backspace",
  bksp: "Backspace",
  del: "Delete",
  delete: "Delete",
  ins: "Insert",
  insert: "Insert",
  home: "Home",
  end: "End",
  pageup: "PageUp",
  pgup: "PageUp",
  pagedown: "PageDown",
  pgdn: "PageDown",
  up: "ArrowUp",
  down: "ArrowDown",
  left: "ArrowLeft",
  right: "ArrowRight",
  arrowup: "ArrowUp",
  arrowdown: "ArrowDown",
  arrowleft: "ArrowLeft",
  arrowright: "ArrowRight",
  capslock: "CapsLock",
};

/**
 * A key combo in the action notation (`ctrl+a`, `Escape`, `shift+Tab`) as Playwright key names
 * (`Control+a`, `Escape`, `Shift+Tab`). Single characters are kept as they are; unknown names are
 * passed on for Playwright to reject.
 */
export function toPlaywrightKeys(keys: string): string {
  if (keys === "+") return "+";
  return keys
    .split("+")
    .map((part) => {
      if (part.length === 1) return part;
      const lower = part.toLowerCase();
      const alias = ALIASES[lower];
      if (alias) return alias;
      if (/^f([1-9]|1[0-2])$/.test(lower)) return lower.toUpperCase();
      return part;
    })
    .join("+");
}
