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
}

export function parseInstruction(text: string): ParsedInstruction {
  const quoted = [...text.matchAll(/"([^"]+)"|“([^”]+)”/g)].map((m) => m[1] ?? m[2] ?? "");
  const labelled: ParsedInstruction["labelled"] = [];
  for (const m of text.matchAll(/((?:[A-Za-z-]+\s+){1,3})"([^"]+)"/g)) {
    labelled.push({ label: tokens(m[1] ?? ""), value: m[2] ?? "" });
  }
  for (const m of text.matchAll(
    /\b(?:type|enter|write|search for)\s+(?:the\s+\w+\s+)?([A-Za-z0-9][\w@.-]*)/gi,
  )) {
    const v = m[1] ?? "";
    if (!STOPWORDS.has(v.toLowerCase()) && !quoted.includes(v)) labelled.push({ label: [], value: v });
  }
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
  return {
    text,
    lower: text.toLowerCase(),
    words: new Set(tokens(text)),
    quoted,
    labelled,
    turnOn,
    turnOff,
    setTo,
    searchQueries,
  };
}
