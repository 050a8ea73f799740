import { fixed, pageParam } from "../format.ts";
import { href, html } from "../html.ts";
import { page, pager, table } from "../layout.ts";
import { PAGE_SIZE, type PageResult, type UiContext } from "../ui-context.ts";
import { outcomeCell } from "./step-view.ts";

/** The trajectories of one task of a run, one page at a time. */
export function taskPage(
  ctx: UiContext,
  runId: string,
  taskId: string,
  query: Record<string, unknown>,
): PageResult {
  const run = ctx.store.getRun(runId);
  if (!run) return { notFound: `no run ${runId} in the store` };
  const task = ctx.store.listTasks(runId).find((t) => t.id === taskId);
  const total = ctx.store.countTrajectories(runId, { taskId });
  if (!task && total === 0) return { notFound: `no task ${taskId} in run ${runId}` };
  const pageIndex = pageParam(query.page);
  const headers = ctx.store.listTrajectories(
    runId,
    { taskId },
    { offset: pageIndex * PAGE_SIZE, limit: PAGE_SIZE },
  );
  const rows = headers.map((t) => [
    t.episodeIndex,
    html`<a class="trajectory-link" href="${href("/trajectories", t.id)}">${t.id}</a>`,
    t.policy,
    t.status,
    t.stepCount,
    fixed(t.outcome?.reward),
    outcomeCell(t.outcome),
  ]);
  const base = href("/runs", runId, "tasks", taskId);
  const body = html`${task ? html`<p><b>Instruction:</b> ${task.instruction}</p><p class="muted">family ${task.family} · split ${task.split} · tier ${task.tier ?? "-"} · seed ${task.seed}</p>` : ""}
<h2>Trajectories</h2>${pager(base, pageIndex, PAGE_SIZE, total)}
${table(["episode", "trajectory", "policy", "status", "steps", "reward", "outcome"], rows, { numeric: [0, 4, 5], id: "trajectories" })}`;
  const crumbs = [
    { label: "Runs", href: "/" },
    { label: runId, href: href("/runs", runId) },
    { label: taskId },
  ];
  return { html: page(`Task ${taskId}`, crumbs, body).value };
}
