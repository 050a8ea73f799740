import { fixed, list, record } from "../format.ts";
import { type Html, html } from "../html.ts";
import { table } from "../layout.ts";

/** The k values of pass rows, in numeric order. */
function ksOf(rows: ReadonlyArray<Record<string, unknown>>, field: string): string[] {
  const ks = new Set<string>();
  for (const r of rows) for (const k of Object.keys(record(r[field]))) ks.add(k);
  return [...ks].sort((a, b) => Number(a) - Number(b));
}

/** pass@k and pass^k per group (split, tier, all) of an eval summary's `pass` rows. */
export function passTable(pass: unknown): Html {
  const rows = list(pass).map(record);
  const ks = ksOf(rows, "passAt");
  const hats = ksOf(rows, "passHat");
  return table(
    ["group", "tasks", ...ks.map((k) => `pass@${k}`), ...hats.map((k) => `pass^${k}`)],
    rows.map((r) => [
      String(r.group ?? "-"),
      String(r.tasks ?? "-"),
      ...ks.map((k) => fixed(record(r.passAt)[k])),
      ...hats.map((k) => fixed(record(r.passHat)[k])),
    ]),
    { numeric: [1, ...ks.map((_, i) => i + 2), ...hats.map((_, i) => i + 2 + ks.length)], id: "pass" },
  );
}

export interface CrossRow {
  label: string;
  clean?: Record<string, unknown>;
  noisy?: Record<string, unknown>;
  cleanRun?: string;
  noisyRun?: string;
}

/** The robustness cross-evaluation: per entrant, pass@k clean vs noisy (group "all") and the drop. */
export function crossTable(rows: ReadonlyArray<CrossRow>, link: (runId: string) => string): Html {
  const ks = [
    ...new Set(rows.flatMap((r) => [...Object.keys(r.clean ?? {}), ...Object.keys(r.noisy ?? {})])),
  ].sort((a, b) => Number(a) - Number(b));
  const cell = (runId: string | undefined, v: unknown) =>
    runId ? html`<a href="${link(runId)}">${fixed(v)}</a>` : fixed(v);
  return table(
    ["entrant", ...ks.flatMap((k) => [`clean pass@${k}`, `noisy pass@${k}`, `drop@${k}`])],
    rows.map((r) => [
      r.label,
      ...ks.flatMap((k) => {
        const c = r.clean?.[k];
        const n = r.noisy?.[k];
        const drop = typeof c === "number" && typeof n === "number" ? fixed(c - n) : "-";
        return [cell(r.cleanRun, c), cell(r.noisyRun, n), drop];
      }),
    ]),
    { numeric: ks.flatMap((_, i) => [1 + 3 * i, 2 + 3 * i, 3 + 3 * i]), id: "cross" },
  );
}
