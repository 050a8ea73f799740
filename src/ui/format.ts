import { type Html, html } from "./html.ts";

/** Small value formatters shared by the pages. */
export function fixed(x: unknown, digits = 3): string {
  return typeof x === "number" && Number.isFinite(x)
    ? String(Math.round(x * 10 ** digits) / 10 ** digits)
    : "-";
}

export function percent(x: unknown): string {
  return typeof x === "number" && Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-";
}

export function isoTime(ms: unknown): string {
  return typeof ms === "number" && Number.isFinite(ms)
    ? new Date(ms).toISOString().replace("T", " ").slice(0, 19)
    : "-";
}

export function pretty(value: unknown): string {
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

/** success / failure / unknown as a coloured word. */
export function verdict(success: boolean | undefined): Html {
  if (success === undefined) return html`<span class="muted">-</span>`;
  return success ? html`<span class="ok">success</span>` : html`<span class="bad">failure</span>`;
}

export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A query parameter as a non-negative integer (0 when absent or malformed). */
export function pageParam(value: unknown): number {
  const n = typeof value === "string" ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : 0;
}
