import { list, record } from "../format.ts";
import { type Html, href, html } from "../html.ts";
import { page } from "../layout.ts";
import type { UiContext } from "../ui-context.ts";
import { type CrossRow, crossTable, passTable } from "./eval-tables.ts";

interface Group {
  prefix: string;
  rows: Map<string, CrossRow>;
  runs: Array<{ id: string; label: string; condition: string; pass: unknown }>;
}

/**
 * Groups the runs of `rehearsal eval --noise` (eval runs whose summary names a `condition`; ids
 * `<prefix>-<entrant>-clean|noisy`) by their prefix: one cross-evaluation table per noisy eval.
 */
export function robustnessGroups(ctx: UiContext): Group[] {
  const groups = new Map<string, Group>();
  for (const run of ctx.store.listRuns({ kind: "eval", limit: 1000 })) {
    const summary = record(run.summary);
    const condition = summary.condition;
    if (condition !== "clean" && condition !== "noisy") continue;
    const label = String(record(run.config).policy ?? "policy");
    const suffix = `-${label}-${condition}`;
    const prefix = run.id.endsWith(suffix) ? run.id.slice(0, -suffix.length) : run.id;
    const group: Group = groups.get(prefix) ?? { prefix, rows: new Map(), runs: [] };
    groups.set(prefix, group);
    const row = group.rows.get(label) ?? { label };
    const all = record(
      list(summary.pass)
        .map(record)
        .find((p) => p.group === "all")?.passAt,
    );
    if (condition === "clean") Object.assign(row, { clean: all, cleanRun: run.id });
    else Object.assign(row, { noisy: all, noisyRun: run.id });
    group.rows.set(label, row);
    group.runs.push({ id: run.id, label, condition, pass: summary.pass });
  }
  return [...groups.values()];
}

/** Robustness: every noisy evaluation's cross table, then each entrant × condition per split / tier. */
export function robustnessPage(ctx: UiContext): string {
  const groups = robustnessGroups(ctx);
  const link = (id: string) => href("/runs", id);
  const sections: Html[] = groups.map(
    (g) => html`<h2>${g.prefix}</h2>${crossTable([...g.rows.values()], link)}
${g.runs.map((r) => html`<details><summary>${r.label} · ${r.condition} · <a href="${link(r.id)}">${r.id}</a></summary>${passTable(r.pass)}</details>`)}`,
  );
  const body =
    sections.length > 0
      ? html`${sections}`
      : html`<p class="empty">No robustness evaluation in this store (run <code>rehearsal eval --noise …</code>).</p>`;
  return page("Robustness cross-evaluation", [{ label: "Runs", href: "/" }, { label: "Robustness" }], body)
    .value;
}
