import type { RunRecord } from "../../store/index.ts";
import { fixed, isoTime, list, percent, record } from "../format.ts";
import { type Html, href, html } from "../html.ts";
import { page, table } from "../layout.ts";
import type { UiContext } from "../ui-context.ts";

/** The headline figure of a run's summary, by kind. */
export function headline(run: RunRecord): string {
  const s = record(run.summary);
  if (typeof s.successRate === "number") return `success ${percent(s.successRate)} of ${s.episodes ?? "?"}`;
  if (typeof s.leaves === "number") return `${s.leaves} leaves, ${s.successes ?? 0} successes`;
  const all = list(s.pass)
    .map(record)
    .find((p) => p.group === "all");
  if (all) {
    const passAt = record(all.passAt);
    return Object.entries(passAt)
      .map(([k, v]) => `pass@${k} ${fixed(v)}`)
      .join(", ");
  }
  if (Array.isArray(s.methods)) return `${s.methods.length} methods`;
  return "";
}

export function statusBadge(status: string): Html {
  const cls = status === "complete" ? "ok" : status === "failed" ? "bad" : "warn";
  return html`<span class="${cls}">${status}</span>`;
}

/** The runs list, newest first. */
export function runsPage(ctx: UiContext): string {
  const runs = ctx.store.listRuns({ limit: 1000 });
  const rows = runs.map((r) => [
    html`<a class="run-link" href="${href("/runs", r.id)}">${r.id}</a>`,
    r.kind,
    statusBadge(r.status),
    isoTime(r.createdAtMs),
    ctx.store.countTrajectories(r.id),
    ctx.store.listTrees(r.id).length,
    headline(r),
  ]);
  const body = html`<p class="muted">Store ${ctx.storeDir} · ${runs.length} runs (newest first, at most 1000)</p>
${table(["run", "kind", "status", "created", "trajectories", "trees", "result"], rows, { numeric: [4, 5], id: "runs" })}`;
  return page("Runs", [], body).value;
}
