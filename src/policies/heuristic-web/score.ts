import type { Action } from "../../core/index.ts";
import type { AxElement, AxPage } from "./axtree.ts";
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

function typeScores(el: AxElement, ins: ParsedInstruction, page: AxPage): Scored[] {
  const out: Scored[] = [];
  const nameTokens = new Set(tokens(el.name));
  const seen = new Set<string>();
  for (const { label, value } of ins.labelled) {
    if (seen.has(value) || el.value === value) continue;
    seen.add(value);
    const labelHit = label.some((w) => nameTokens.has(w)) ? 3 : 0;
    out.push({
      action: { type: "type", text: value, elementId: el.id },
      score: 1 + labelHit + (el.value ? 0 : 1),
    });
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
    if (TEXT_ROLES.has(el.role) && !el.value && (ins.labelled.length > 0 || hasCode)) pending += 1;
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

function clickScore(
  el: AxElement,
  ins: ParsedInstruction,
  lastClicked: string | undefined,
  pending: number,
): number {
  let s = 2.5 * overlap(el.name, ins);
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
): Scored[] {
  const out: Scored[] = [];
  const last = history[history.length - 1];
  const lastClicked = last?.type === "click" ? last.elementId : undefined;
  const pending = pendingWork(page, ins);
  for (const el of page.elements) {
    if (el.disabled) continue;
    if (TEXT_ROLES.has(el.role) || (el.role === "combobox" && !el.options)) {
      out.push(...typeScores(el, ins, page));
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
        score: clickScore(el, ins, lastClicked, pending),
      });
    }
  }
  const best = out.reduce((m, c) => Math.max(m, c.score), Number.NEGATIVE_INFINITY);
  const scrolledLast = last?.type === "scroll";
  out.push({ action: { type: "scroll", direction: "down", amount: 300 }, score: scrolledLast ? -1 : best < 1 ? 1.5 : -0.5 });
  out.push({ action: { type: "done" }, score: pending > 0 ? -4 : -2 });
  return out;
}
