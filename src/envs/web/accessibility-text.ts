/**
 * The web environment's accessibility text, read back: the one parser of the format that the page
 * agent writes (page/agent.js `axtree`; the format is in this folder's README, "Observation"):
 *
 *   [12] button "Buy" value="x" checked      an interactive element: id, role, quoted name, states
 *   text "Total: 3 items"                    visible text outside controls
 *
 * Two spaces of indentation per enclosing control. Policies and the noise recovery read observations
 * through this module only (no light-weight dependency on the browser: it imports nothing).
 */

/** One interactive element of an accessibility text line `[12] button "Buy" value="x" checked`. */
export interface AxElement {
  id: string;
  role: string;
  name: string;
  value?: string;
  options?: string[];
  checked: boolean;
  selected: boolean;
  focused: boolean;
  disabled: boolean;
  /** Enclosing controls (indentation / 2). */
  depth: number;
}

export interface AxPage {
  elements: AxElement[];
  /** Visible text lines (`text "..."`) and element names, for goal and code spotting. */
  texts: string[];
}

/** One parsed line: an element, a text block, or nothing the format knows. */
export type AxLine = { kind: "element"; element: AxElement } | { kind: "text"; text: string } | null;

const QUOTED = String.raw`"((?:[^"\\]|\\.)*)"`;
const ELEMENT_LINE = new RegExp(String.raw`^(\s*)\[([^\]]+)\]\s+(\S+)(?:\s+${QUOTED})?(.*)$`);
const TEXT_LINE = new RegExp(String.raw`^\s*text\s+${QUOTED}`);
const VALUE = new RegExp(String.raw`\bvalue=${QUOTED}`);
const OPTIONS = /\boptions=(\[.*?\])(?:\s|$)/;
const ANY_QUOTED = new RegExp(QUOTED, "g");
const FIRST_ID = /^\s*\[(\d+)\]/m;

/** A quoted name or value as written (JSON string escapes), decoded; the raw text when it is not valid. */
function decodeQuoted(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

function parseOptions(rest: string): string[] | undefined {
  const m = OPTIONS.exec(rest);
  if (!m?.[1]) return undefined;
  try {
    return JSON.parse(m[1]) as string[];
  } catch {
    return undefined;
  }
}

/** Parses one line of accessibility text. */
export function parseAxLine(line: string): AxLine {
  const t = TEXT_LINE.exec(line);
  if (t) return { kind: "text", text: decodeQuoted(t[1] ?? "") };
  const m = ELEMENT_LINE.exec(line);
  if (!m) return null;
  const rest = m[5] ?? "";
  // State words are matched outside quoted values, so a value "checked" is not the state.
  const states = rest.replace(ANY_QUOTED, "");
  const element: AxElement = {
    id: m[2] ?? "",
    role: m[3] ?? "",
    name: decodeQuoted(m[4] ?? ""),
    checked: /\bchecked\b/.test(states),
    selected: /\bselected\b/.test(states),
    focused: /\bfocused\b/.test(states),
    disabled: /\bdisabled\b/.test(states),
    depth: (m[1] ?? "").length / 2,
  };
  const value = VALUE.exec(rest);
  if (value) element.value = decodeQuoted(value[1] ?? "");
  const options = parseOptions(rest);
  if (options) element.options = options;
  return { kind: "element", element };
}

/** Parses the accessibility text of a page: its elements in order, and its visible texts. */
export function parseAxtree(text: string): AxPage {
  const elements: AxElement[] = [];
  const texts: string[] = [];
  for (const raw of text.split("\n")) {
    const line = parseAxLine(raw);
    if (line?.kind === "text") texts.push(line.text);
    else if (line?.kind === "element") {
      elements.push(line.element);
      if (line.element.name) texts.push(line.element.name);
    }
  }
  return { elements, texts };
}

/** The id of the first element line in `text` (e.g. the focused line), or null. */
export function firstElementId(text: string): string | null {
  return FIRST_ID.exec(text)?.[1] ?? null;
}
