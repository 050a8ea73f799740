/** A JSON-looking piece of model text. */
export type JsonCandidate =
  | { kind: "value"; value: unknown; text: string }
  | { kind: "invalid"; text: string }
  | { kind: "truncated"; text: string };

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    // Models often leave a trailing comma; forgive that one slip.
    const repaired = text.replace(/,(\s*[}\]])/g, "$1");
    if (repaired === text) return { ok: false };
    try {
      return { ok: true, value: JSON.parse(repaired) };
    } catch {
      return { ok: false };
    }
  }
}

/**
 * The brace-balanced `{...}` spans of `text`, scanning strings properly. An object still open at the
 * end of the text is returned as `truncated`.
 */
function scanObjects(text: string): JsonCandidate[] {
  const out: JsonCandidate[] = [];
  let i = 0;
  while (i < text.length) {
    const start = text.indexOf("{", i);
    if (start < 0) break;
    let depth = 0;
    let inString = false;
    let escaped = false;
    let end = -1;
    for (let j = start; j < text.length; j++) {
      const ch = text[j];
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) {
          end = j;
          break;
        }
      }
    }
    if (end < 0) {
      const rest = text.slice(start);
      // Only a JSON-looking object counts as truncated; a stray "{" in prose does not.
      if (/^\{\s*("|$)/.test(rest)) out.push({ kind: "truncated", text: rest });
      break;
    }
    const span = text.slice(start, end + 1);
    const parsed = tryParse(span);
    if (parsed.ok) out.push({ kind: "value", value: parsed.value, text: span });
    else if (/["':]/.test(span)) out.push({ kind: "invalid", text: span });
    i = end + 1;
  }
  return out;
}

/**
 * JSON candidates in a region of model text: the whole region when it is JSON (arrays give their
 * elements), otherwise every balanced object inside it.
 */
export function extractJsonCandidates(region: string): JsonCandidate[] {
  const trimmed = region.trim();
  if (trimmed === "") return [];
  const whole = tryParse(trimmed);
  if (whole.ok) {
    if (Array.isArray(whole.value))
      return whole.value.map((value) => ({ kind: "value", value, text: JSON.stringify(value) }));
    return [{ kind: "value", value: whole.value, text: trimmed }];
  }
  return scanObjects(trimmed);
}

/** The contents of ``` fenced blocks (an unclosed last fence runs to the end of the text). */
export function fencedBlocks(text: string): string[] {
  const blocks: string[] = [];
  const re = /```[^\n`]*\n?([\s\S]*?)(```|$)/g;
  for (const m of text.matchAll(re)) {
    const body = m[1] ?? "";
    if (body.trim() !== "") blocks.push(body);
    if (m[2] === "") break;
  }
  return blocks;
}

/** The text after the last `Action:` marker, if any. */
export function afterActionMarker(text: string): string | undefined {
  const matches = [...text.matchAll(/\baction\s*:/gi)];
  const last = matches.at(-1);
  return last?.index === undefined ? undefined : text.slice(last.index + last[0].length);
}
