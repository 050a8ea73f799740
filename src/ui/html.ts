/**
 * Server-side HTML with escaped output. `html\`...\`` escapes every interpolated value unless it is
 * already `Html` (built by `html` itself, or `raw()` for trusted markup such as an SVG this package
 * rendered); arrays are joined. So text from the store (task names, instructions, observations, model
 * output) can never open a tag or end an attribute.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

export type HtmlValue = Html | string | number | boolean | null | undefined | ReadonlyArray<HtmlValue>;

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The tagged template: literal parts are markup, interpolated values are escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** Trusted markup, inserted as is (only for markup this package generated and escaped itself). */
export function raw(markup: string): Html {
  return new Html(markup);
}

/** A path built from fixed parts and escaped-for-URL segments: `href("/runs", id)`. */
export function href(...parts: ReadonlyArray<string | number>): string {
  return parts.map((p, i) => (i === 0 ? String(p) : encodeURIComponent(String(p)))).join("/");
}
