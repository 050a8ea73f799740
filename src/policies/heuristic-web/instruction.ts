import { type DateTimeValue, parseDate, parseTime } from "./date-time.ts";

const STOPWORDS = new Set(
  "a an the and or then to of in on into from for with by at as is be it its this that these those your you me my i please click select choose set turn press enter type field text box button link page nothing else only leave rest unchanged each all named given".split(
    " ",
  ),
);

/** Lower-case word tokens without stop words. */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter((w) => !STOPWORDS.has(w));
}

export interface ParsedInstruction {
  text: string;
  lower: string;
  words: Set<string>;
  /** Quoted strings, in order. */
  quoted: string[];
  /** Values to type with the word(s) just before them: `username "kofi54"` → ["username", "kofi54"]. */
  labelled: Array<{ label: string[]; value: string }>;
  /** Names to switch on and off. */
  turnOn: string[];
  turnOff: string[];
  /** `set "Font size" to Large` pairs. */
  setTo: Array<{ name: string; value: string }>;
  /** Product-like phrases to type into a search box. */
  searchQueries: string[];
  /** Quoted strings that name something to click ("click \"Search\"", "the link \"tips\""): never typed. */
  clickQuoted: string[];
  /** Things to pick before submitting ("Choose Medium from the list", "select \"Red\" and ..."). */
  picks: string[];
  /** Which text field the value goes into: 0 for "the first text field", 1 for "the 2nd box", -1 last. */
  ordinalField?: number;
  /** The instruction asks to focus a field ("Focus into the textbox"). */
  focus: boolean;
  /** The instruction asks to expand / open a collapsible first. */
  expand: boolean;
  date?: DateTimeValue;
  time?: DateTimeValue;
  /** What a copy task names ("the order number shown below" → "order number"). */
  copyKind?: string;
}

const ORDINALS: Record<string, number> = {
  first: 0,
  "1st": 0,
  second: 1,
  "2nd": 1,
  third: 2,
  "3rd": 2,
  fourth: 3,
  "4th": 3,
  last: -1,
};
const CLICK_CUE =
  /\b(click|clicking|press|tap|hit|select|choose|pick|link|button|tab|card)\s*(?:on\s+)?(?:the\s+)?(?:\w+\s+)?$/i;

/** The phrase after `search for`: quoted, or up to the end of the clause. */
function searchPhrases(text: string): string[] {
  return [
    ...text.matchAll(
      /\bsearch(?:\s+for|\s+the\s+web\s+for)\s+(?:"([^"]+)"|([a-z0-9][a-z0-9 '-]*?))(?=\s*(?:[,.;!]|$|\s+(?:then|and|in|on|using|with)\b))/gi,
    ),
  ]
    .map((m) => m[1] ?? (m[2] ?? "").replace(/^(?:an?|the|some)\s+/i, "").trim())
    .filter((q) => q.length > 0);
}

export function parseInstruction(text: string): ParsedInstruction {
  const quoted = [...text.matchAll(/"([^"]+)"|“([^”]+)”/g)].map((m) => m[1] ?? m[2] ?? "");
  const labelled: ParsedInstruction["labelled"] = [];
  for (const m of text.matchAll(/((?:[A-Za-z-]+\s+){1,3})"([^"]+)"/g)) {
    labelled.push({ label: tokens(m[1] ?? ""), value: m[2] ?? "" });
  }
  // "Type "JERALD" in all lower case letters".
  const recase = /\blower[- ]?case\b/i.test(text)
    ? (v: string) => v.toLowerCase()
    : /\b(upper[- ]?case|capital letters)\b/i.test(text)
      ? (v: string) => v.toUpperCase()
      : null;
  if (recase) for (const l of labelled) l.value = recase(l.value);
  const date = parseDate(text) ?? undefined;
  const time = parseTime(text) ?? undefined;
  const search = searchPhrases(text);
  for (const q of search) if (!quoted.includes(q)) labelled.push({ label: ["search"], value: q });
  for (const m of text.matchAll(/\b(?:type|enter|write)\s+(?:the\s+\w+\s+)?([A-Za-z0-9][\w@.-]*)/gi)) {
    const v = m[1] ?? "";
    // "Enter 3:45 PM as the time", "Enter Dec 3, 2016": the date or time, not a word to type.
    const dated =
      (date || time) && /^([\d/:.-]+|(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?)$/i.test(v);
    if (!STOPWORDS.has(v.toLowerCase()) && !quoted.includes(v) && !dated)
      labelled.push({ label: [], value: v });
  }
  const clickQuoted = [...text.matchAll(/"([^"]+)"/g)]
    .filter((m) => CLICK_CUE.test(text.slice(Math.max(0, (m.index ?? 0) - 40), m.index)))
    .map((m) => m[1] ?? "");
  // "Select GDKkQ, xYz and click Submit", "Choose Tiny from the list": the names, each.
  const picks = [
    ...text.matchAll(
      /\b(?:[Ss]elect|[Cc]hoose|[Pp]ick)\s+(?:the\s+)?(.+?)(?=\s+(?:and\s+(?:then\s+)?(?:click|press|hit|submit)|from|in|on|then)\b|[.;]|$)/g,
    ),
  ]
    .flatMap((m) => (m[1] ?? "").split(/\s*,\s*(?:and\s+)?|\s+and\s+/))
    .map((p) => p.replace(/^"|"$/g, "").trim())
    .filter((p) => p.length > 0);
  const copy = /\bthe\s+((?:[A-Za-z]+\s+){0,2}[A-Za-z]+)\s+(?:shown|displayed|given|written|printed)\b/i.exec(
    text,
  );
  const ord =
    /\b(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(?:text\s*)?(?:field|box|input|textbox)\b/i.exec(
      text,
    );
  const names = (re: RegExp) =>
    [...text.matchAll(re)].map((m) => (m[1] ?? "").replace(/^"|"$/g, "").trim()).filter((s) => s.length > 0);
  const turnOn = names(/turn on\s+("[^"]+"|[A-Za-z][\w -]*?)(?=,|\.|\s+and\s|$)/gi);
  const turnOff = names(/turn off\s+("[^"]+"|[A-Za-z][\w -]*?)(?=,|\.|\s+and\s|$)/gi);
  const setTo = [
    ...text.matchAll(/set\s+"([^"]+)"\s+to\s+"?([A-Za-z0-9][\w -]*?)"?(?=,|\.|\s+and\s|$)/gi),
  ].map((m) => ({
    name: m[1] ?? "",
    value: m[2] ?? "",
  }));
  // What to search for: "I need a lightweight backpack in olive" → "lightweight backpack".
  const searchQueries = [
    ...text.matchAll(
      /\b(?:need|want|find|buy|looking for|search for)\s+(?:an?|the|some)\s+([a-z][a-z -]*?)(?=\s+(?:in|for|with|that|which|priced|size|under)\b|[,.]|$)/gi,
    ),
  ]
    .map((m) => (m[1] ?? "").trim())
    .filter((q) => q.length > 0);
  // "Enter the order number shown below": "number" names what to copy, it is not the text.
  const kindWords = new Set(tokens(copy?.[1] ?? ""));
  const typed = labelled.filter((l) => l.label.length > 0 || !kindWords.has(l.value.toLowerCase()));
  return {
    text,
    lower: text.toLowerCase(),
    words: new Set(tokens(text)),
    quoted,
    labelled: typed,
    turnOn,
    turnOff,
    setTo,
    searchQueries: [...searchQueries, ...search],
    clickQuoted,
    picks,
    focus: /\bfocus\b/i.test(text),
    ...(ord ? { ordinalField: ORDINALS[(ord[1] ?? "").toLowerCase()] } : {}),
    expand:
      /\b(expand|unfold|open up)\b|\bopen\b[^.]*\b(section|panel|accordion|details|collapsible)\b/i.test(
        text,
      ),
    ...(copy?.[1] ? { copyKind: copy[1].toLowerCase() } : {}),
    ...(date ? { date } : {}),
    ...(time ? { time } : {}),
  };
}
