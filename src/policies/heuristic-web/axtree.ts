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
  depth: number;
}

export interface AxPage {
  elements: AxElement[];
  /** Visible text lines (`text "..."`) and element names, for goal and code spotting. */
  texts: string[];
}

const LINE = /^(\s*)\[([^\]]+)\]\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?(.*)$/;
const TEXT = /^\s*text\s+"((?:[^"\\]|\\.)*)"/;

function decodeQuoted(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s;
  }
}

/** Parses the web environment's accessibility text (see src/envs/web/observe.ts for the format). */
export function parseAxtree(text: string): AxPage {
  const elements: AxElement[] = [];
  const texts: string[] = [];
  for (const raw of text.split("\n")) {
    const t = TEXT.exec(raw);
    if (t) {
      texts.push(decodeQuoted(t[1] ?? ""));
      continue;
    }
    const m = LINE.exec(raw);
    if (!m) continue;
    const rest = m[5] ?? "";
    const value = /\bvalue="((?:[^"\\]|\\.)*)"/.exec(rest);
    const options = /\boptions=(\[.*?\])(?:\s|$)/.exec(rest);
    let parsedOptions: string[] | undefined;
    if (options?.[1]) {
      try {
        parsedOptions = JSON.parse(options[1]) as string[];
      } catch {
        parsedOptions = undefined;
      }
    }
    const name = decodeQuoted(m[4] ?? "");
    const el: AxElement = {
      id: m[2] ?? "",
      role: m[3] ?? "",
      name,
      checked: /\bchecked\b/.test(rest.replace(/"(?:[^"\\]|\\.)*"/g, "")),
      selected: /\bselected\b/.test(rest.replace(/"(?:[^"\\]|\\.)*"/g, "")),
      focused: /\bfocused\b/.test(rest.replace(/"(?:[^"\\]|\\.)*"/g, "")),
      disabled: /\bdisabled\b/.test(rest.replace(/"(?:[^"\\]|\\.)*"/g, "")),
      depth: (m[1] ?? "").length / 2,
    };
    if (value) el.value = decodeQuoted(value[1] ?? "");
    if (parsedOptions) el.options = parsedOptions;
    elements.push(el);
    if (name) texts.push(name);
  }
  return { elements, texts };
}
