import { fixed, isoTime, pageParam, pretty } from "../format.ts";
import { href, html } from "../html.ts";
import { page, pager } from "../layout.ts";
import { PAGE_SIZE, type PageResult, type UiContext } from "../ui-context.ts";
import { outcomeCell, stepDetail, stepsTable } from "./step-view.ts";

/**
 * A trajectory step by step: the page of the step table around `?step=N` (default 0) and that step in
 * full. Only the page's steps are read (a trajectory may have any number of steps).
 */
export function trajectoryPage(ctx: UiContext, id: string, query: Record<string, unknown>): PageResult {
  const t = ctx.store.getTrajectoryHeader(id);
  if (!t) return { notFound: `no trajectory ${id} in the store` };
  const base = href("/trajectories", id);
  const asked =
    query.step === undefined && query.page !== undefined
      ? pageParam(query.page) * PAGE_SIZE
      : pageParam(query.step);
  const current = Math.min(asked, Math.max(t.stepCount - 1, 0));
  const pageIndex = Math.floor(current / PAGE_SIZE);
  const steps = ctx.store.listSteps(id, { offset: pageIndex * PAGE_SIZE, limit: PAGE_SIZE });
  const [selected] = ctx.store.listSteps(id, { offset: current, limit: 1 });
  const link = (i: number) => `${base}?step=${i}`;
  const nav = html`<div class="pager">${current > 0 ? html`<a rel="prev" href="${link(current - 1)}">← step ${current - 1}</a>` : ""}
<span>step ${current} of ${t.stepCount}</span>${current + 1 < t.stepCount ? html`<a rel="next" href="${link(current + 1)}">step ${current + 1} →</a>` : ""}</div>`;
  const body = html`<div class="cards"><div class="card">status<b>${t.status}</b></div><div class="card">outcome<b>${outcomeCell(t.outcome)}</b></div>
<div class="card">reward<b>${fixed(t.outcome?.reward)}</b></div><div class="card">steps<b>${t.stepCount}</b></div>
<div class="card">policy<b>${t.policy}</b></div><div class="card">episode<b>${t.episodeIndex}</b></div></div>
<p class="muted">run <a href="${href("/runs", t.runId)}">${t.runId}</a> · task <a href="${href("/runs", t.runId, "tasks", t.taskId)}">${t.taskId}</a> · seed ${t.seed} · started ${isoTime(t.startedAtMs)}</p>
${t.error ? html`<p class="bad">${t.error.code}: ${t.error.message}</p>` : ""}
${selected ? html`${nav}<section id="step">${stepDetail(selected)}</section>` : html`<p class="empty">no steps</p>`}
<h2>Steps</h2>${pager(base, pageIndex, PAGE_SIZE, t.stepCount)}${stepsTable(steps, link, current)}
${Object.keys(t.meta).length > 0 ? html`<details><summary>Meta</summary><pre>${pretty(t.meta)}</pre></details>` : ""}`;
  const crumbs = [
    { label: "Runs", href: "/" },
    { label: t.runId, href: href("/runs", t.runId) },
    { label: t.taskId, href: href("/runs", t.runId, "tasks", t.taskId) },
    { label: id },
  ];
  return { html: page(`Trajectory ${id}`, crumbs, body).value };
}
