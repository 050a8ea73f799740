import { type AxElement, type AxPage, parseAxLine, parseAxtree } from "../../envs/web/accessibility-text.ts";

/**
 * What the heuristic reads from an observation beyond `parseAxtree`: which elements say they are
 * collapsed or expanded (`aria-expanded`), and which generic elements (a `div`, `span`, `li`, ... the
 * page agent lists because of a pointer listener, `onclick` or `cursor: pointer`) are click targets.
 */
export interface PageView extends AxPage {
  collapsed: ReadonlySet<string>;
  expanded: ReadonlySet<string>;
}

/** Roles that take text, a date or a choice rather than a click. */
export const TEXT_ROLES: ReadonlySet<string> = new Set(["textbox", "searchbox", "spinbutton"]);
export const DATE_ROLES: ReadonlySet<string> = new Set(["date", "time"]);
const NOT_CLICKED = new Set([...TEXT_ROLES, ...DATE_ROLES, "combobox", "listbox", "slider"]);
/** Roles named by the ARIA vocabulary or the page agent for real controls. */
export const CLICK_ROLES: ReadonlySet<string> = new Set([
  "button",
  "link",
  "checkbox",
  "radio",
  "switch",
  "tab",
  "menuitem",
  "option",
  "treeitem",
  "gridcell",
  "row",
  "listitem",
  "cell",
]);

const COLLAPSED = /\scollapsed(\s|$)/;
const EXPANDED = /\sexpanded(\s|$)/;
const QUOTED_PART = /"(?:[^"\\]|\\.)*"/g;

/** A short text line right before an unnamed field is its visual label ("Username" above a box). */
const LABEL_MAX = 40;

export function readPage(text: string): PageView {
  const collapsed = new Set<string>();
  const expanded = new Set<string>();
  const labels = new Map<string, string>();
  let before: string | null = null;
  for (const raw of text.split("\n")) {
    const line = parseAxLine(raw);
    if (line?.kind === "text") before = line.text;
    if (line?.kind !== "element") continue;
    const el = line.element;
    if (TEXT_ROLES.has(el.role) && !el.name && before && before.length <= LABEL_MAX)
      labels.set(el.id, before);
    before = null;
    const states = raw.replace(QUOTED_PART, "");
    if (COLLAPSED.test(states)) collapsed.add(el.id);
    if (EXPANDED.test(states)) expanded.add(el.id);
  }
  const page = parseAxtree(text);
  for (const el of page.elements) el.name = labels.get(el.id) ?? el.name;
  return { ...page, collapsed, expanded };
}

export function asView(page: AxPage | PageView): PageView {
  return "collapsed" in page ? page : { ...page, collapsed: new Set(), expanded: new Set() };
}

/**
 * Whether an element is something to click: a control role, or a generic element the page agent
 * marked interactive that is a leaf (a container with listed elements inside is a delegation target,
 * not a thing the instruction names) and has a name to match.
 */
export function clickable(page: AxPage, index: number): boolean {
  const el = page.elements[index] as AxElement;
  if (CLICK_ROLES.has(el.role)) return true;
  if (NOT_CLICKED.has(el.role) || el.name.trim().length === 0) return false;
  const next = page.elements[index + 1];
  return !(next && next.depth > el.depth);
}

/** A generic (non-ARIA) clickable element: matched on its text, with a smaller exploring base. */
export function generic(el: AxElement): boolean {
  return !CLICK_ROLES.has(el.role);
}
