import type { Observation } from "../../core/observation.ts";
import type { StateRecord, StateViewer } from "../../core/state-view.ts";
import { stateFields } from "../state-fields.ts";
import { type AxElement, parseAxLine } from "./accessibility-text.ts";

const WEB_FAMILY = "web";

const FIELDS = stateFields(
  {
    url: "string",
    title: "string",
    /** The focused element's id, null when nothing is focused. */
    focus: "string",
    /** The focused element's line when it is not an element of the accessibility text. */
    "focus.line": "string",
    /** The accessibility text's lines in order: `el:<id>` for elements, `line:<n>` for the others. */
    order: "list",
    "el.*.role": "string",
    "el.*.name": "string",
    "el.*.value": "string",
    "el.*.options": "list",
    "el.*.checked": "boolean",
    "el.*.selected": "boolean",
    /** Present only when the element shows `expanded` or `collapsed`. */
    "el.*.expanded": "boolean",
    "el.*.disabled": "boolean",
    "el.*.readonly": "boolean",
    "el.*.focused": "boolean",
    /** Enclosing controls (two spaces of indentation each). */
    "el.*.depth": "number",
    /** Text and image lines (`kind` text or img); a line the format does not describe is kept `raw`. */
    "line.*.kind": "string",
    "line.*.text": "string",
    "line.*.depth": "number",
    "line.*.raw": "string",
  },
  {
    instruction: "string",
  },
);

/** An element as the view holds it: the parsed line plus the states `parseAxLine` does not keep. */
interface ElementState extends AxElement {
  expanded?: boolean;
  readonly: boolean;
}

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
const IMG_LINE = new RegExp(String.raw`^(\s*)img (${QUOTED})$`);

/** An element line exactly as the page agent writes it (`describe` in page/agent.js). */
function elementLine(e: ElementState): string {
  const record: StateRecord = {};
  putElement(record, e);
  return elementLineOf(record, e.id, e.depth);
}

/**
 * The line of element `id` of `state` (missing fields read as an element with no name, value or
 * states; `depth` overrides the state's), built as one string: a rendered step writes every line.
 */
function elementLineOf(state: StateRecord, id: string, depth?: number): string {
  const at = `el.${id}.`;
  let line = `[${id}] ${String(state[`${at}role`] ?? "generic")}`;
  const name = String(state[`${at}name`] ?? "");
  if (name) line += ` ${JSON.stringify(name)}`;
  const value = state[`${at}value`];
  if (value !== undefined && value !== null) line += ` value=${JSON.stringify(String(value))}`;
  const options = state[`${at}options`];
  if (Array.isArray(options)) line += ` options=${JSON.stringify(options.map(String))}`;
  if (state[`${at}checked`] === true) line += " checked";
  if (state[`${at}selected`] === true) line += " selected";
  const expanded = state[`${at}expanded`];
  if (typeof expanded === "boolean") line += expanded ? " expanded" : " collapsed";
  if (state[`${at}disabled`] === true) line += " disabled";
  if (state[`${at}readonly`] === true) line += " readonly";
  if (state[`${at}focused`] === true) line += " focused";
  return "  ".repeat(depth ?? Number(state[`${at}depth`] ?? 0)) + line;
}

function textLine(kind: string, text: string, depth: number): string {
  return `${"  ".repeat(depth)}${kind} ${JSON.stringify(text)}`;
}

/** The element of an element line, when writing it back gives the line exactly. */
function elementOf(raw: string): ElementState | undefined {
  const line = parseAxLine(raw);
  if (line?.kind !== "element" || line.element.id.includes(".")) return undefined;
  const states = raw.slice(raw.indexOf("]") + 1).replace(new RegExp(QUOTED, "g"), "");
  const e: ElementState = { ...line.element, readonly: /\breadonly\b/.test(states) };
  if (/\bexpanded\b/.test(states)) e.expanded = true;
  else if (/\bcollapsed\b/.test(states)) e.expanded = false;
  return elementLine(e) === raw ? e : undefined;
}

/** A text or image line's kind, text and depth, when writing it back gives the line exactly. */
function textOf(raw: string): { kind: string; text: string; depth: number } | undefined {
  const parsed = parseAxLine(raw);
  const depth = (raw.length - raw.trimStart().length) / 2;
  let found: { kind: string; text: string; depth: number } | undefined;
  if (parsed?.kind === "text") found = { kind: "text", text: parsed.text, depth };
  const img = IMG_LINE.exec(raw);
  if (img) {
    try {
      found = { kind: "img", text: JSON.parse(img[2] ?? "") as string, depth };
    } catch {
      return undefined;
    }
  }
  return found && textLine(found.kind, found.text, found.depth) === raw ? found : undefined;
}

function putElement(record: StateRecord, e: ElementState): void {
  const at = `el.${e.id}`;
  record[`${at}.role`] = e.role;
  record[`${at}.name`] = e.name;
  if (e.value !== undefined) record[`${at}.value`] = e.value;
  if (e.options !== undefined) record[`${at}.options`] = [...e.options];
  record[`${at}.checked`] = e.checked;
  record[`${at}.selected`] = e.selected;
  if (e.expanded !== undefined) record[`${at}.expanded`] = e.expanded;
  record[`${at}.disabled`] = e.disabled;
  record[`${at}.readonly`] = e.readonly;
  record[`${at}.focused`] = e.focused;
  record[`${at}.depth`] = e.depth;
}

/** The instruction the text shows: `Instruction: <instruction>` before the accessibility text. */
function instructionOf(o: Observation): string {
  const prefix = "Instruction: ";
  const end = o.axtree === undefined ? o.text.length : o.text.length - o.axtree.length - 1;
  return o.text.startsWith(prefix) && end >= prefix.length
    ? o.text.slice(prefix.length, end)
    : (o.instruction ?? "");
}

/** The web state an observation shows: url, title, focus and every line of its accessibility text. */
function view(observation: Observation): StateRecord {
  const record: StateRecord = { instruction: instructionOf(observation) };
  if (observation.url !== undefined) record.url = observation.url;
  if (observation.title !== undefined) record.title = observation.title;
  const lines: Record<string, string> = {};
  if (observation.axtree !== undefined) {
    const order: string[] = [];
    const raws = observation.axtree === "" ? [] : observation.axtree.split("\n");
    raws.forEach((raw, n) => {
      const element = elementOf(raw);
      if (element && record[`el.${element.id}.role`] === undefined) {
        putElement(record, element);
        order.push(`el:${element.id}`);
        lines[element.id] = elementLine({ ...element, depth: 0 });
        return;
      }
      const text = textOf(raw);
      if (text) {
        record[`line.${n}.kind`] = text.kind;
        record[`line.${n}.text`] = text.text;
        record[`line.${n}.depth`] = text.depth;
      } else record[`line.${n}.raw`] = raw;
      order.push(`line:${n}`);
    });
    record.order = order;
  }
  if (observation.focused !== undefined) {
    const id = Object.keys(lines).find((k) => lines[k] === observation.focused);
    if (observation.focused === "") record.focus = null;
    else if (id !== undefined) record.focus = id;
    else record["focus.line"] = observation.focused;
  }
  return record;
}

function lineOf(state: StateRecord, token: string): string | undefined {
  if (token.startsWith("el:")) return elementLineOf(state, token.slice(3));
  const n = token.slice(5);
  const raw = state[`line.${n}.raw`];
  if (typeof raw === "string") return raw;
  const text = state[`line.${n}.text`];
  if (text === undefined) return undefined;
  return textLine(
    String(state[`line.${n}.kind`] ?? "text"),
    String(text),
    Number(state[`line.${n}.depth`] ?? 0),
  );
}

/**
 * The observation of `state`: the accessibility text written line by line in the page agent's format,
 * the text (`Instruction: ...` then the accessibility text), url, title and the focused line. The
 * screenshot, the error and the per-step data are not state: data is `previous`'s, the rest dropped.
 */
function render(state: StateRecord, previous: Observation): Observation {
  const instruction = String(state.instruction ?? previous.instruction ?? "");
  const order = state.order;
  let axtree: string | undefined;
  if (Array.isArray(order)) {
    axtree = "";
    let first = true;
    for (const token of order) {
      const line = lineOf(state, String(token));
      if (line === undefined) continue;
      axtree = first ? line : `${axtree}\n${line}`;
      first = false;
    }
  }
  const observation: Observation = {
    text: axtree === undefined ? `Instruction: ${instruction}` : `Instruction: ${instruction}\n${axtree}`,
    instruction,
  };
  if (state.url !== undefined) observation.url = String(state.url);
  if (state.title !== undefined) observation.title = String(state.title);
  if (typeof state["focus.line"] === "string") observation.focused = state["focus.line"];
  else if (state.focus === null) observation.focused = "";
  else if (state.focus !== undefined) observation.focused = elementLineOf(state, String(state.focus), 0);
  if (axtree !== undefined) observation.axtree = axtree;
  if (previous.data !== undefined) observation.data = structuredClone(previous.data);
  return observation;
}

/** Web observations as states (see `StateViewer`). */
export const webStateViewer: StateViewer = {
  family: WEB_FAMILY,
  fields: FIELDS,
  view,
  render,
};
