import type { Action, Observation, PolicyContext } from "../../core/index.ts";
import { parseAxLine } from "../../envs/web/accessibility-text.ts";
import { type ParsedInstruction, parseInstruction } from "./instruction.ts";

/**
 * Recovery from interruptions, read from the observation only (what an agent sees): a native browser
 * dialog (Escape), another tab in front (Control+1), and page widgets that were not on the page in the
 * episode's first observation (toasts, banners, modals, panels): click their close button, press Escape
 * when the widget says so, drag a movable one away, wait for one that is in progress. Deterministic.
 */

/**
 * Labels that only interruptions use (never a page's own controls in practice): when an interruption
 * is already there in the first view of the page, these identify it without a "before" to compare.
 * Close-type ones and acknowledging ones.
 */
const UNMISTAKABLE_CLOSE = [
  "dismiss",
  "close chat",
  "close tip",
  "close download bar",
  "clear all",
  "no thanks",
  "not now",
  "skip ad",
  "reject all",
  "minimize",
];
const UNMISTAKABLE_ACK = ["accept all", "stay signed in", "got it"];
const UNMISTAKABLE: ReadonlySet<string> = new Set([...UNMISTAKABLE_CLOSE, ...UNMISTAKABLE_ACK]);
/** Button labels that end an interruption, best first: close-type, then acknowledge, then step on. */
const DISMISS_RANKS: ReadonlyArray<ReadonlySet<string>> = [
  new Set([...UNMISTAKABLE_CLOSE, "close", "later", "skip", "block"]),
  new Set([...UNMISTAKABLE_ACK, "ok", "accept", "allow", "snooze", "done"]),
  new Set(["next", "continue"]),
];
const MOVE_HANDLE = /^move\s/i;
const ESC_HINT = /\besc\b/i;
/** Text of something in progress that goes away by itself ("Saving…", "You are offline. Reconnecting…"). */
const TRANSIENT =
  /(…|\.\.\.)\s*$|\b(saving|connecting|reconnecting|loading|uploading|syncing|offline|please wait)\b/i;
const ESCAPE: Action = { type: "key", keys: "Escape" };
const CLICK_CAP = 2;
const WAIT_CAP = 2;
const ESCAPE_CAP = 2;

/** One line of the accessibility text: `role|name` of an element, or `text|...` of a text block. */
interface Line {
  key: string;
  name: string;
  role: string;
  id: string;
  disabled: boolean;
}

const linesCache = new WeakMap<Observation, Line[]>();

function linesOf(observation: Observation): Line[] {
  const cached = linesCache.get(observation);
  if (cached) return cached;
  const out: Line[] = [];
  for (const raw of (observation.axtree ?? observation.text).split("\n")) {
    const line = parseAxLine(raw);
    if (line?.kind === "element") {
      const el = line.element;
      const key = `${el.role}|${el.name.trim().toLowerCase()}`;
      out.push({ key, name: el.name, role: el.role, id: el.id, disabled: el.disabled });
    } else if (line?.kind === "text") {
      out.push({ key: `text|${line.text}`, name: line.text, role: "text", id: "", disabled: false });
    }
  }
  linesCache.set(observation, out);
  return out;
}

function keysOf(observation: Observation): Set<string> {
  return new Set(linesOf(observation).map((l) => l.key));
}

/** Lines after the last line the first observation also had: where the noise layer shows its widgets. */
function newTail(first: Observation, current: Observation): Line[] {
  const old = keysOf(first);
  const now = linesOf(current);
  let start = 0;
  now.forEach((l, i) => {
    if (old.has(l.key)) start = i + 1;
  });
  return now.slice(start);
}

const isButton = (l: Line) => l.role === "button";

/** Splits the new lines into widgets: each widget ends with its row of buttons; a drag handle starts one. */
function widgets(tail: ReadonlyArray<Line>): Line[][] {
  const out: Line[][] = [];
  let current: Line[] = [];
  let buttonsSeen = false;
  for (const l of tail) {
    const handle = isButton(l) && MOVE_HANDLE.test(l.name);
    if (current.length > 0 && ((buttonsSeen && !isButton(l)) || handle)) {
      out.push(current);
      current = [];
      buttonsSeen = false;
    }
    current.push(l);
    if (isButton(l) && !handle) buttonsSeen = true;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** Whether the instruction names this label (then the button is the task's, not noise). */
function asked(name: string, ins: ParsedInstruction): boolean {
  const n = name.trim().toLowerCase();
  if (n.length === 0) return false;
  if (ins.quoted.some((q) => q.trim().toLowerCase() === n)) return true;
  const escaped = n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^a-z0-9])${escaped}([^a-z0-9]|$)`).test(ins.lower);
}

/** A recovery move and the lines whose presence right after it means it did not work. */
interface Option {
  action: Action;
  anchors: string[];
  cap: number;
}

function widgetOptions(
  widget: ReadonlyArray<Line>,
  ins: ParsedInstruction,
  viewportHeight: number,
): Option[] {
  const out: Option[] = [];
  const head = (widget[0] as Line).key;
  const buttons = widget.filter((l) => isButton(l) && !l.disabled && !MOVE_HANDLE.test(l.name));
  for (const rank of DISMISS_RANKS) {
    for (const b of buttons) {
      if (rank.has(b.name.trim().toLowerCase()) && !asked(b.name, ins)) {
        out.push({ action: { type: "click", elementId: b.id }, anchors: [head, b.key], cap: CLICK_CAP });
      }
    }
  }
  const clicks = out.length;
  const hint = widget.find((l) => l.role === "text" && ESC_HINT.test(l.name));
  if (hint && clicks === 0) out.push({ action: ESCAPE, anchors: [hint.key], cap: ESCAPE_CAP });
  for (const h of widget.filter((l) => isButton(l) && MOVE_HANDLE.test(l.name))) {
    out.push({
      action: { type: "drag", from: { elementId: h.id }, to: { x: 10, y: viewportHeight - 10 } },
      anchors: [h.key],
      cap: 1,
    });
  }
  const transient = widget.find((l) => l.role === "text" && TRANSIENT.test(l.name));
  if (transient && widget.every((l) => !isButton(l))) {
    out.push({ action: { type: "wait", ms: 500 }, anchors: [transient.key], cap: WAIT_CAP });
  }
  // Every close button was pressed twice without effect: escalate.
  if (clicks > 0) out.push({ action: ESCAPE, anchors: [head], cap: 1 });
  return out;
}

function sameAction(entry: PolicyContext["history"][number], action: Action, anchors: string[]): boolean {
  const done = entry.action;
  if (!done || done.type !== action.type) return false;
  const target = done.type === "click" ? done.elementId : done.type === "drag" ? done.from.elementId : null;
  if (target !== null) {
    if (target === undefined) return false;
    const el = linesOf(entry.observation).find((l) => l.id === target);
    return el !== undefined && anchors.includes(el.key);
  }
  if (done.type === "key" && action.type === "key")
    return done.keys.toLowerCase() === action.keys.toLowerCase();
  return true;
}

/** How often this move was made before and its anchors were all still there afterwards. */
function failures(context: PolicyContext, option: Option): number {
  const { history } = context;
  let n = 0;
  history.forEach((entry, i) => {
    if (!sameAction(entry, option.action, option.anchors)) return;
    const after = keysOf(history[i + 1]?.observation ?? context.observation);
    if (option.anchors.every((a) => after.has(a))) n += 1;
  });
  return n;
}

function foreignTabActive(observation: Observation): boolean {
  const tabs = observation.data?.tabs;
  if (Array.isArray(tabs)) {
    return tabs.some(
      (t) => (t as { active?: unknown }).active === true && (t as { index?: unknown }).index !== 1,
    );
  }
  const line = /^Tabs: (.*)$/m.exec(observation.text)?.[1];
  return line !== undefined && /(^|· )([2-9]) "[^"]*" \(active\)/.test(line);
}

function lastActionsWere(context: PolicyContext, type: Action["type"], count: number): boolean {
  const last = context.history.slice(-count);
  return last.length === count && last.every((h) => h.action?.type === type);
}

/** The same click twice in a row and nothing on the page changed. */
function stuckClicking(context: PolicyContext): boolean {
  const [a, b] = context.history.slice(-2);
  if (!a || !b || a.action?.type !== "click" || JSON.stringify(a.action) !== JSON.stringify(b.action))
    return false;
  const text = (o: Observation) => o.axtree ?? o.text;
  return text(a.observation) === text(b.observation) && text(b.observation) === text(context.observation);
}

/**
 * The action that gets past an interruption visible in the current observation, or null when there is
 * none (or every recovery move for it was already tried): then the policy acts on the task as usual.
 */
export function recoveryAction(context: PolicyContext): Action | null {
  const { observation } = context;
  if (
    observation.data?.nativeDialog ||
    observation.error?.code === "native_dialog_open" ||
    /^Browser dialog \(/m.test(observation.text)
  ) {
    return ESCAPE;
  }
  if (foreignTabActive(observation)) return { type: "key", keys: "Control+1" };

  const ins = parseInstruction(observation.instruction ?? context.task.instruction);
  // "Before" is the first view of the task's own page (not another tab, not behind a dialog).
  const onTaskPage = (o: Observation) =>
    !foreignTabActive(o) && !o.data?.nativeDialog && !/^Browser dialog \(/m.test(o.text);
  const first = [...context.history.map((h) => h.observation), observation].find(onTaskPage) ?? observation;
  let tail = newTail(first, observation);
  if (first === observation) {
    // No earlier view of the page: only a widget with an unmistakable interruption button counts.
    const marked = widgets(linesOf(observation)).filter((w) =>
      w.some((l) => isButton(l) && UNMISTAKABLE.has(l.name.trim().toLowerCase()) && !asked(l.name, ins)),
    );
    tail = marked.flat();
  }
  if (tail.length === 0) return null;
  const viewport = observation.data?.viewport as { height?: unknown } | undefined;
  const height = typeof viewport?.height === "number" ? viewport.height : 600;
  // The last widget is the topmost: a modal's backdrop would swallow clicks on the ones below it.
  for (const widget of widgets(tail).reverse()) {
    for (const option of widgetOptions(widget, ins, height)) {
      if (option.action.type === "wait" && lastActionsWere(context, "wait", WAIT_CAP)) continue;
      if (failures(context, option) < option.cap) return option.action;
    }
  }
  return stuckClicking(context) ? ESCAPE : null;
}
