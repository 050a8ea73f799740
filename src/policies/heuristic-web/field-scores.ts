import type { Action } from "../../core/index.ts";
import type { AxElement, AxPage } from "../../envs/web/accessibility-text.ts";
import { type ParsedInstruction, tokens } from "./instruction.ts";
import { CLICK_ROLES, DATE_ROLES, TEXT_ROLES } from "./page-view.ts";

export interface Scored {
  action: Action;
  score: number;
}

/** A short code (letters and digits, one digit at least) shown on a page: what copy tasks copy. */
export const CODE = /\b(?=[A-Z0-9]*\d)[A-Z0-9]{4,}\b/g;

/** The value the page states for the instruction's copy kind ("Your order number is 32-507"). */
export function copyValue(ins: ParsedInstruction, page: AxPage): string | null {
  if (!ins.copyKind) return null;
  const kind = ins.copyKind.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\s+/g, "\\s+");
  const re = new RegExp(`\\b${kind}\\s*(?:is|was|:|=)\\s*([A-Za-z0-9](?:[\\w-]*[A-Za-z0-9])?)`, "i");
  for (const text of page.texts) {
    const m = re.exec(text);
    if (m?.[1]) return m[1];
  }
  return null;
}

/**
 * What may be typed into a text field: the instruction's quoted and labelled values, except names of
 * things to switch, set or click (`click "Search"`) and labels of the page's own buttons and links.
 */
export function typableValues(ins: ParsedInstruction, page: AxPage): ParsedInstruction["labelled"] {
  const names = new Set(
    [...ins.turnOn, ...ins.turnOff, ...ins.setTo.map((p) => p.name), ...ins.clickQuoted].map((n) =>
      n.toLowerCase(),
    ),
  );
  for (const el of page.elements) if (CLICK_ROLES.has(el.role)) names.add(el.name.trim().toLowerCase());
  return ins.labelled.filter((l) => !names.has(l.value.toLowerCase()));
}

/** The enabled text fields of the page, in order. */
function textFields(page: AxPage): AxElement[] {
  return page.elements.filter((e) => TEXT_ROLES.has(e.role) && !e.disabled);
}

/** Whether the instruction picks another field than `el` ("into the second text field"). */
export function otherField(el: AxElement, ins: ParsedInstruction, page: AxPage): boolean {
  if (ins.ordinalField === undefined) return false;
  const fields = textFields(page);
  const target = ins.ordinalField < 0 ? fields[fields.length - 1] : fields[ins.ordinalField];
  return target !== undefined && target.id !== el.id;
}

/** The value a date or time input should get, with the keystrokes that fill it. */
export function wantedDateTime(el: AxElement, ins: ParsedInstruction): ParsedInstruction["date"] {
  if (!DATE_ROLES.has(el.role)) return undefined;
  return el.role === "date" ? ins.date : ins.time;
}

/** A date or time input: type the instruction's date/time in the input's segment order. */
export function dateScores(el: AxElement, ins: ParsedInstruction): Scored[] {
  const want = wantedDateTime(el, ins);
  if (!want || el.value === want.value) return [];
  return [{ action: { type: "type", text: want.keys, elementId: el.id }, score: el.value ? 2 : 3.5 }];
}

/**
 * Typing appends at the caret, so a field that holds a wrong value is first focused, then its text
 * selected (ctrl+a), then typed over; an empty field is typed into directly. Text comes from the
 * instruction only (and, for copy tasks, from a code shown in the page's text, never a control's label).
 */
export function typeScores(
  el: AxElement,
  ins: ParsedInstruction,
  page: AxPage,
  last: Action | null | undefined,
): Scored[] {
  const out: Scored[] = [];
  const nameTokens = new Set(tokens(el.name));
  const seen = new Set<string>();
  const selectedAll = last?.type === "key" && /^(ctrl|control|meta)\+a$/i.test(last.keys);
  const ordinalHit = ins.ordinalField !== undefined ? (otherField(el, ins, page) ? null : 3) : 0;
  if (ins.focus && !el.focused && ordinalHit !== null)
    out.push({ action: { type: "click", elementId: el.id }, score: 3 + (ordinalHit ?? 0) });
  for (const { label, value } of ordinalHit === null ? [] : typableValues(ins, page)) {
    if (seen.has(value) || el.value === value) continue;
    seen.add(value);
    const labelHit = (label.some((w) => nameTokens.has(w)) ? 3 : 0) + (ordinalHit ?? 0);
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
  const copied = copyValue(ins, page);
  if (copied && !seen.has(copied) && el.value !== copied) {
    seen.add(copied);
    const kindHit = tokens(ins.copyKind ?? "").some((w) => nameTokens.has(w)) ? 1 : 0;
    out.push({
      action: { type: "type", text: copied, elementId: el.id },
      score: el.value ? 0 : 2.5 + kindHit,
    });
  }
  // A code shown on the page but not in the instruction (copy tasks), never a control's label.
  const labels = new Set(page.elements.filter((e) => CLICK_ROLES.has(e.role)).map((e) => e.name));
  for (const text of page.texts) {
    if (labels.has(text)) continue;
    for (const m of text.matchAll(CODE)) {
      const code = m[0];
      if (seen.has(code) || ins.text.includes(code) || el.value === code) continue;
      seen.add(code);
      out.push({ action: { type: "type", text: code, elementId: el.id }, score: 1.5 });
    }
  }
  return out;
}
