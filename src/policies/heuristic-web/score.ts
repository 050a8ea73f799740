import type { Action } from "../../core/index.ts";
import type { AxElement, AxPage } from "../../envs/web/accessibility-text.ts";
import {
  CODE,
  copyValue,
  dateScores,
  otherField,
  type Scored,
  typableValues,
  typeScores,
  wantedDateTime,
} from "./field-scores.ts";
import { type ParsedInstruction, tokens } from "./instruction.ts";
import { asView, clickable, DATE_ROLES, generic, type PageView, TEXT_ROLES } from "./page-view.ts";

export type { Scored } from "./field-scores.ts";

const SUBMIT =
  /^(submit|ok|apply|log ?in|sign ?in|search|buy|buy now|send|save|next|continue|confirm|done|add to cart|checkout|place order|reply|forward|delete|rename|move|create|finish)\b/i;
const BACK = /^(back|‹|<|← ?back|cancel|close|home)\b/i;
const TAB_LIKE = /^tab\b/i;

function overlap(name: string, ins: ParsedInstruction): number {
  const t = tokens(name);
  if (t.length === 0) return 0;
  return t.filter((w) => ins.words.has(w)).length / t.length;
}

function includesName(name: string, list: string[]): boolean {
  const n = name.toLowerCase().trim();
  return n.length > 0 && list.some((x) => x.toLowerCase() === n);
}

/** What the scoring knows of the episode beyond the page. */
export interface EpisodeState {
  /** Names of elements clicked earlier in the episode (ids change when pages re-render; names do not). */
  visited: ReadonlySet<string>;
  /** Whether any click was made yet. */
  clicked: boolean;
}

const FRESH: EpisodeState = { visited: new Set(), clicked: false };

/** Elements the instruction picks ("Choose Medium ...") that are on the page and not picked yet. */
function unpicked(page: AxPage, ins: ParsedInstruction, state: EpisodeState): AxElement[] {
  if (ins.picks.length === 0) return [];
  return page.elements.filter(
    (el, i) =>
      clickable(page, i) &&
      !el.disabled &&
      !el.selected &&
      !el.checked &&
      !["checkbox", "radio", "switch"].includes(el.role) &&
      includesName(el.name, ins.picks) &&
      !state.visited.has(el.name.trim().toLowerCase()),
  );
}

/** The instruction asks to expand something and nothing is expanded yet. */
function expandPending(view: PageView, ins: ParsedInstruction, state: EpisodeState): boolean {
  return ins.expand && view.expanded.size === 0 && (view.collapsed.size > 0 || !state.clicked);
}

/**
 * How much of the instruction the page still shows undone: empty text fields when there is something to
 * type, date or time inputs without the named date, named boxes or switches not in the asked state,
 * named options not selected, named items not picked, a section to expand. Submitting while work is
 * pending is what a careless agent does; the heuristic avoids it.
 */
export function pendingWork(
  page: AxPage | PageView,
  ins: ParsedInstruction,
  state: EpisodeState = FRESH,
): number {
  const view = asView(page);
  let pending = unpicked(page, ins, state).length + (expandPending(view, ins, state) ? 1 : 0);
  const hasCode = page.texts.some((t) => new RegExp(CODE.source).test(t)) || copyValue(ins, page) !== null;
  const typable = typableValues(ins, page);
  for (const el of page.elements) {
    if (el.disabled) continue;
    const want = wantedDateTime(el, ins);
    if (want && el.value !== want.value) pending += 1;
    if (!TEXT_ROLES.has(el.role) || otherField(el, ins, page)) continue;
    const searchable = ins.searchQueries.length > 0 && /search/i.test(el.name);
    if (!el.value && (typable.length > 0 || hasCode || searchable)) pending += 1;
    if (el.value) {
      const nameTokens = new Set(tokens(el.name));
      const meant = typable.find((l) => l.label.some((w) => nameTokens.has(w)));
      if (meant && meant.value !== el.value && !/^[•*●]+$/.test(el.value)) pending += 1;
    }
  }
  for (const el of page.elements) {
    if (el.disabled) continue;
    if (el.role === "checkbox" || el.role === "radio" || el.role === "switch") {
      if (
        !el.checked &&
        (includesName(el.name, ins.turnOn) ||
          includesName(el.name, ins.picks) ||
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

interface ClickContext {
  lastClicked: string | undefined;
  pending: number;
  visited: ReadonlySet<string>;
  /** Whether anything unvisited on the page matches the instruction. */
  pageMatches: boolean;
  /** The instruction names a click target that the page does not show yet (behind a tab or a fold). */
  hidden: boolean;
  /** Something is to be expanded first. */
  expand: boolean;
  view: PageView;
}

/** Score of opening a collapsible or switching a tab, when the target is hidden or expanding is asked. */
function revealScore(el: AxElement, ctx: ClickContext, matching: boolean): number {
  if (!ctx.hidden && !ctx.expand) return 0;
  if (ctx.view.collapsed.has(el.id)) return 2.5;
  if (ctx.view.expanded.has(el.id)) return -2;
  if (!ctx.hidden) return 0;
  const tabLike = el.role === "tab" || TAB_LIKE.test(el.name.trim());
  if (tabLike && !el.selected && !ctx.visited.has(el.name.trim().toLowerCase())) return 1.5;
  // A link or item that is not the target: exploring beats clicking it.
  return matching || SUBMIT.test(el.name.trim()) ? 0 : -1;
}

function clickScore(el: AxElement, ins: ParsedInstruction, ctx: ClickContext): number {
  const { lastClicked, pending } = ctx;
  // A small base for every clickable element: with nothing matching, exploring beats scrolling forever.
  // Generic elements (a span, div or li with a listener) get less: a page has many, most are not targets.
  const o = overlap(el.name, ins);
  let s = (generic(el) ? 0.1 : 0.4) + 2.5 * o;
  // A card or row names more than the instruction quotes ("Cairo 4 nights from $385"): a word of the
  // instruction in it still marks it.
  if (generic(el) && o > 0 && o < 1 && tokens(el.name).some((w) => w.length > 2 && ins.words.has(w))) s += 1;
  if (includesName(el.name, ins.quoted)) s += 3;
  else if (el.name.length > 2 && ins.lower.includes(el.name.toLowerCase())) s += 1.5;
  if (SUBMIT.test(el.name.trim())) s += pending > 0 ? -4 : 1.2;
  s += revealScore(el, ctx, o > 0);
  if (el.role === "switch" || el.role === "checkbox") {
    if (el.checked && includesName(el.name, ins.turnOn)) s -= 4;
    if (!el.checked && includesName(el.name, ins.turnOff)) s -= 4;
    if (el.checked && includesName(el.name, [...ins.quoted, ...ins.picks]) && ins.turnOff.length === 0)
      s -= 4;
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

/** A click target the instruction names (`click the link "tips"`, `choose Medium`) is on the page. */
function targetShown(page: AxPage, ins: ParsedInstruction): boolean {
  const targets = [...ins.clickQuoted, ...ins.picks];
  if (targets.length === 0) return true;
  return page.elements.some((el) => {
    const n = el.name.trim().toLowerCase();
    return targets.some((t) => n === t.toLowerCase() || tokens(n).includes(t.toLowerCase()));
  });
}

/**
 * Scores every action the heuristic considers: clicks by word overlap with the instruction (submit-like
 * buttons get a bonus, switches and boxes already in the asked state a penalty; generic clickable
 * elements too), opening collapsibles and tabs while the named target is hidden, typing the
 * instruction's quoted or labelled values into text fields (more when the field's label or ordinal
 * matches), dates and times into date/time inputs, selecting options the instruction names, Enter in a
 * filled focused field, scrolling when nothing matches, done rarely.
 */
export function scoreActions(
  page: AxPage | PageView,
  ins: ParsedInstruction,
  history: ReadonlyArray<Action | null>,
  visited: ReadonlySet<string> = new Set(),
): Scored[] {
  const view = asView(page);
  const out: Scored[] = [];
  const last = history[history.length - 1];
  const lastClicked = last?.type === "click" ? last.elementId : undefined;
  const state: EpisodeState = { visited, clicked: history.some((a) => a?.type === "click") };
  const pending = pendingWork(view, ins, state);
  const pageMatches = page.elements.some(
    (el, i) =>
      !el.disabled &&
      clickable(page, i) &&
      !SUBMIT.test(el.name.trim()) &&
      overlap(el.name, ins) > 0 &&
      !visited.has(el.name.trim().toLowerCase()),
  );
  const hidden = !targetShown(page, ins);
  const expand = expandPending(view, ins, state);
  const ctx: ClickContext = { lastClicked, pending, visited, pageMatches, hidden, expand, view };
  page.elements.forEach((el, i) => {
    if (el.disabled) return;
    if (TEXT_ROLES.has(el.role) || (el.role === "combobox" && !el.options)) {
      out.push(...typeScores(el, ins, page, last));
      if (el.focused && el.value) out.push({ action: { type: "key", keys: "Enter" }, score: 0.8 });
    } else if (DATE_ROLES.has(el.role)) {
      out.push(...dateScores(el, ins));
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
    } else if (clickable(page, i)) {
      out.push({ action: { type: "click", elementId: el.id }, score: clickScore(el, ins, ctx) });
    }
  });
  const best = out.reduce((m, c) => Math.max(m, c.score), Number.NEGATIVE_INFINITY);
  const scrolledLast = last?.type === "scroll";
  out.push({
    action: { type: "scroll", direction: "down", amount: 300 },
    score: scrolledLast ? -1 : best < 1 ? 1.5 : -0.5,
  });
  out.push({ action: { type: "done" }, score: pending > 0 ? -4 : -2 });
  return out;
}
