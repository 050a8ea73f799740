import type { Action } from "../../core/index.ts";
import type { AxElement, AxPage } from "../../envs/web/accessibility-text.ts";
import { type ParsedInstruction, tokens } from "./instruction.ts";

export interface Scored {
  action: Action;
  score: number;
}

const TEXT_ROLES = new Set(["textbox", "searchbox", "spinbutton"]);
const CLICK_ROLES = new Set([
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
const SUBMIT =
  /^(submit|ok|apply|log ?in|sign ?in|search|buy|buy now|send|save|next|continue|confirm|done|add to cart|checkout|place order|reply|forward|delete|rename|move|create|finish)\b/i;

function overlap(name: string, ins: ParsedInstruction): number {
  const t = tokens(name);
  if (t.length === 0) return 0;
  return t.filter((w) => ins.words.has(w)).length / t.length;
}

function includesName(name: string, list: string[]): boolean {
  const n = name.toLowerCase().trim();
  return n.length > 0 && list.some((x) => x.toLowerCase() === n);
}

/** Quoted names of things to switch or set are not values to type. */
function typableValues(ins: ParsedInstruction): ParsedInstruction["labelled"] {
  const names = new Set(
    [...ins.turnOn, ...ins.turnOff, ...ins.setTo.map((p) => p.name)].map((n) => n.toLowerCase()),
  );
  return ins.labelled.filter((l) => !names.has(l.value.toLowerCase()));
}

/**
 * Typing appends at the caret, so a field that holds a wrong value is first focused, then its text
 * selected (ctrl+a), then typed over; an empty field is typed into directly.
 */
function typeScores(
  el: AxElement,
  ins: ParsedInstruction,
  page: AxPage,
  last: Action | null | undefined,
): Scored[] {
  const out: Scored[] = [];
  const nameTokens = new Set(tokens(el.name));
  const seen = new Set<string>();
  const selectedAll = last?.type === "key" && /^(ctrl|control|meta)\+a$/i.test(last.keys);
  for (const { label, value } of typableValues(ins)) {
    if (seen.has(value) || el.value === value) continue;
    seen.add(value);
    const labelHit = label.some((w) => nameTokens.has(w)) ? 3 : 0;
    if (!el.value || (el.focused && selectedAll)) {
      out.push({ action: { type: "type", text: value, elementId: el.id }, score: 2 + labelHit });
    } else if (el.focused) {
      out.push({ action: { type: "key", keys: "ctrl+a" }, score: 0.5 + labelHit });
    } else {
      out.push({ action: { type: "click", elementId: el.id }, score: 0.5 + labelHit });
    }
  }
  if (/search/i.test(el.name)) {
    for (const q of ins.searchQueries) {
      if (el.value === q || seen.has(q)) continue;
      seen.add(q);
      out.push({ action: { type: "type", text: q, elementId: el.id }, score: el.value ? 0 : 2.5 });
    }
  }
  // A code shown on the page but not in the instruction (copy tasks).
  for (const text of page.texts) {
    for (const m of text.matchAll(/\b(?=[A-Z0-9]*\d)[A-Z0-9]{4,}\b/g)) {
      const code = m[0];
      if (seen.has(code) || ins.text.includes(code) || el.value === code) continue;
      seen.add(code);
      out.push({ action: { type: "type", text: code, elementId: el.id }, score: 1.5 });
    }
  }
  return out;
}

/**
 * How much of the instruction the page still shows undone: empty text fields when there is something to
 * type, named boxes or switches not in the asked state, named options not selected. Submitting while
 * work is pending is what a careless agent does; the heuristic avoids it.
 */
export function pendingWork(page: AxPage, ins: ParsedInstruction): number {
  let pending = 0;
  const hasCode = page.texts.some((t) => /\b(?=[A-Z0-9]*\d)[A-Z0-9]{4,}\b/.test(t));
  for (const el of page.elements) {
    if (el.disabled) continue;
    const searchable = ins.searchQueries.length > 0 && /search/i.test(el.name);
    if (TEXT_ROLES.has(el.role) && !el.value && (ins.labelled.length > 0 || hasCode || searchable))
      pending += 1;
    if (TEXT_ROLES.has(el.role) && el.value) {
      const nameTokens = new Set(tokens(el.name));
      const meant = typableValues(ins).find((l) => l.label.some((w) => nameTokens.has(w)));
      if (meant && meant.value !== el.value && !/^[•*●]+$/.test(el.value)) pending += 1;
    }
    if (el.role === "checkbox" || el.role === "radio" || el.role === "switch") {
      if (
        !el.checked &&
        (includesName(el.name, ins.turnOn) ||
          (includesName(el.name, ins.quoted) && !includesName(el.name, ins.turnOff)))
      )
        pending += 1;
      if (el.checked && includesName(el.name, ins.turnOff)) pending += 1;
    }
    if (el.role === "combobox" && el.options) {
      const named = el.options.filter(
        (o) =>
          o.length > 1 && new RegExp(`\\b${o.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i").test(ins.text),
      );
      if (named.length > 0 && !named.includes(el.value ?? "")) pending += 1;
    }
  }
  return pending;
}

const BACK = /^(back|‹|<|← ?back|cancel|close|home)\b/i;

interface ClickContext {
  lastClicked: string | undefined;
  pending: number;
  /** Names of elements clicked earlier in the episode (ids change when pages re-render; names do not). */
  visited: ReadonlySet<string>;
  /** Whether anything unvisited on the page matches the instruction. */
  pageMatches: boolean;
}

function clickScore(el: AxElement, ins: ParsedInstruction, ctx: ClickContext): number {
  const { lastClicked, pending } = ctx;
  // A small base for every clickable element: with nothing matching, exploring beats scrolling forever.
  let s = 0.4 + 2.5 * overlap(el.name, ins);
  if (includesName(el.name, ins.quoted)) s += 3;
  else if (el.name.length > 2 && ins.lower.includes(el.name.toLowerCase())) s += 1.5;
  if (SUBMIT.test(el.name.trim())) s += pending > 0 ? -4 : 1.2;
  if (el.role === "switch" || el.role === "checkbox") {
    if (el.checked && includesName(el.name, ins.turnOn)) s -= 4;
    if (!el.checked && includesName(el.name, ins.turnOff)) s -= 4;
    if (el.checked && includesName(el.name, ins.quoted) && ins.turnOff.length === 0) s -= 4;
  }
  if ((el.role === "tab" || el.role === "radio" || el.role === "option") && (el.selected || el.checked))
    s -= 3;
  if (lastClicked === el.id) s -= 3;
  const name = el.name.trim().toLowerCase();
  const isBack = BACK.test(el.name.trim());
  if (ctx.visited.has(name) && !SUBMIT.test(el.name.trim()) && !isBack) s -= 1.5;
  // Nothing left to do here: going back is how a multi-page app moves on.
  if (isBack && pending === 0 && !ctx.pageMatches) s += 1.5;
  return s;
}

/**
 * Scores every action the heuristic considers: clicks by word overlap with the instruction (submit-like
 * buttons get a bonus, switches and boxes already in the asked state a penalty), typing the instruction's
 * quoted or labelled values into text fields (more when the field's label matches), selecting options
 * the instruction names, Enter in a filled focused field, scrolling when nothing matches, done rarely.
 */
export function scoreActions(
  page: AxPage,
  ins: ParsedInstruction,
  history: ReadonlyArray<Action | null>,
  visited: ReadonlySet<string> = new Set(),
): Scored[] {
  const out: Scored[] = [];
  const last = history[history.length - 1];
  const lastClicked = last?.type === "click" ? last.elementId : undefined;
  const pending = pendingWork(page, ins);
  const pageMatches = page.elements.some(
    (el) =>
      !el.disabled &&
      CLICK_ROLES.has(el.role) &&
      !SUBMIT.test(el.name.trim()) &&
      overlap(el.name, ins) > 0 &&
      !visited.has(el.name.trim().toLowerCase()),
  );
  const ctx: ClickContext = { lastClicked, pending, visited, pageMatches };
  for (const el of page.elements) {
    if (el.disabled) continue;
    if (TEXT_ROLES.has(el.role) || (el.role === "combobox" && !el.options)) {
      out.push(...typeScores(el, ins, page, last));
      if (el.focused && el.value) out.push({ action: { type: "key", keys: "Enter" }, score: 0.8 });
    } else if (el.role === "combobox" && el.options) {
      for (const option of el.options) {
        if (option === el.value || option.length === 0) continue;
        const named = ins.lower.includes(option.toLowerCase()) ? 4 : 0;
        const setHit = ins.setTo.some(
          (p) =>
            p.value.toLowerCase() === option.toLowerCase() &&
            tokens(el.name).some((w) => tokens(p.name).includes(w)),
        )
          ? 2
          : 0;
        out.push({ action: { type: "select", elementId: el.id, value: option }, score: named + setHit - 1 });
      }
    } else if (CLICK_ROLES.has(el.role)) {
      out.push({
        action: { type: "click", elementId: el.id },
        score: clickScore(el, ins, ctx),
      });
    }
  }
  const best = out.reduce((m, c) => Math.max(m, c.score), Number.NEGATIVE_INFINITY);
  const scrolledLast = last?.type === "scroll";
  out.push({
    action: { type: "scroll", direction: "down", amount: 300 },
    score: scrolledLast ? -1 : best < 1 ? 1.5 : -0.5,
  });
  out.push({ action: { type: "done" }, score: pending > 0 ? -4 : -2 });
  return out;
}
