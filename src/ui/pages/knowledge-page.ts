import type { KnowledgeEntry } from "../../knowledge/index.ts";
import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import { fixed, pageParam, pretty, record } from "../format.ts";
import { type Html, href, html, raw } from "../html.ts";
import { knowledgeSources, loadKnowledge, type SklReport, sklReports } from "../knowledge-sources.ts";
import { page, pager, table } from "../layout.ts";
import { PAGE_SIZE, type PageResult, type UiContext } from "../ui-context.ts";
import { headline } from "./runs-page.ts";

const COLOURS = ["#2457c5", "#c62828", "#1a7f37", "#ef8a17", "#8e44ad", "#0e9f9a", "#5b6472", "#b26a00"];

/** One learning-curve chart of a report: `metric` per iteration, test solid and train dashed, per method. */
function curveChart(report: SklReport, metric: string, label: string): string {
  const series = report.methods.flatMap((m, i) => {
    const color = COLOURS[i % COLOURS.length] as string;
    const points = (split: string) =>
      m.iterations.map(
        (it, j) => [Number(it.iteration ?? j), Number(record(it[split])[metric] ?? 0)] as const,
      );
    return [
      { name: `${m.method} (test)`, points: points("test"), color },
      { name: `${m.method} (train)`, points: points("train"), color, dashed: true },
    ];
  });
  return renderLineChartSvg({
    title: `${report.kind}: ${label}`,
    xLabel: "iteration",
    yLabel: label,
    series,
  });
}

/** The learning curves of one report: success rate, and good-move ratio when the report has it. */
export function learningCurves(report: SklReport): Html {
  const first = record(report.methods[0]?.iterations[0]?.test);
  const charts = [curveChart(report, "successRate", "success rate")];
  if (typeof first.goodMoveRatio === "number")
    charts.push(curveChart(report, "goodMoveRatio", "good-move ratio"));
  return html`<figure class="chart">${charts.map(raw)}<figcaption class="muted">${report.path}</figcaption></figure>`;
}

/** SKL: the skl runs of the store, learning curves from the reports, and the knowledge tables. */
export function knowledgePage(ctx: UiContext): string {
  const runs = ctx.store.listRuns({ kind: "skl", limit: 1000 });
  const reports = sklReports(ctx);
  const sources = knowledgeSources(ctx);
  const body = html`<h2>SKL runs</h2>${table(
    ["run", "experiment", "status", "result"],
    runs.map((r) => [
      html`<a href="${href("/runs", r.id)}">${r.id}</a>`,
      String(record(r.config).experiment ?? "-"),
      r.status,
      headline(r),
    ]),
  )}
<h2>Learning curves</h2>${reports.length > 0 ? reports.map(learningCurves) : html`<p class="empty">No SKL report found: pass <code>rehearsal ui --skl DIR</code> (the --out-dir of <code>rehearsal skl</code>).</p>`}
<h2>Knowledge tables</h2>${table(
    ["table", "kept in"],
    sources.map((s, i) => [
      html`<a class="knowledge-link" href="${href("/knowledge/tables", i)}">${s.name}</a>`,
      s.kind === "sqlite" ? "store database" : s.path,
    ]),
    { id: "knowledge-tables" },
  )}`;
  return page(
    "SKL: learning curves and knowledge",
    [{ label: "Runs", href: "/" }, { label: "Knowledge" }],
    body,
  ).value;
}

/** The latest version of every key of a table (entries come by key, then version). */
function latest(entries: ReadonlyArray<KnowledgeEntry>): Array<KnowledgeEntry & { versions: number }> {
  const byKey = new Map<string, KnowledgeEntry & { versions: number }>();
  for (const e of entries) {
    const prev = byKey.get(e.key);
    if (!prev || e.version > prev.version)
      byKey.set(e.key, { ...e, versions: Math.max(e.version, prev?.versions ?? 0) });
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One knowledge table: its keys' latest versions (fields, text, provenance), one page at a time. */
export async function knowledgeTablePage(
  ctx: UiContext,
  index: number,
  query: Record<string, unknown>,
): Promise<PageResult> {
  const source = knowledgeSources(ctx)[index];
  if (!source) return { notFound: `no knowledge table number ${index}` };
  const entries = latest(await loadKnowledge(ctx, source));
  const pageIndex = pageParam(query.page);
  const shown = entries.slice(pageIndex * PAGE_SIZE, (pageIndex + 1) * PAGE_SIZE);
  const rows = shown.map((e) => [
    e.key,
    html`${e.version}`,
    html`${e.epoch}`,
    e.writer,
    e.text,
    html`<pre>${pretty(e.fields)}</pre>`,
    `${e.provenance.episodeIds.length} episodes${e.provenance.episodeIds.length ? `: ${e.provenance.episodeIds.slice(0, 3).join(", ")}${e.provenance.episodeIds.length > 3 ? ", …" : ""}` : ""}`,
  ]);
  const body = html`<p class="muted">${entries.length} keys · ${source.kind === "sqlite" ? "store database" : source.path} · mean versions per key ${fixed(entries.reduce((s, e) => s + e.versions, 0) / Math.max(entries.length, 1), 2)}</p>
${pager(href("/knowledge/tables", index), pageIndex, PAGE_SIZE, entries.length)}
${table(["key", "version", "epoch", "writer", "text", "fields", "provenance"], rows, { numeric: [1, 2], id: "knowledge" })}`;
  const crumbs = [
    { label: "Runs", href: "/" },
    { label: "Knowledge", href: "/knowledge" },
    { label: source.name },
  ];
  return { html: page(`Knowledge table ${source.name}`, crumbs, body).value };
}
