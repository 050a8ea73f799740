import type { RunRecord } from "../../store/index.ts";
import { fixed, isoTime, list, percent, pretty, record } from "../format.ts";
import { type Html, href, html } from "../html.ts";
import { page, table } from "../layout.ts";
import type { PageResult, UiContext } from "../ui-context.ts";
import { passTable } from "./eval-tables.ts";
import { statusBadge } from "./runs-page.ts";

/** Tasks with at most this many trajectories get their success rate tallied when the summary has none. */
const TALLY_LIMIT = 200;

/** Success rate and mean steps of a task's complete trajectories (eval runs keep no per-task summary). */
function tallied(ctx: UiContext, runId: string, taskId: string, count: number): Record<string, unknown> {
  if (count === 0 || count > TALLY_LIMIT) return {};
  const done = ctx.store
    .listTrajectories(runId, { taskId, status: "complete" }, { offset: 0, limit: TALLY_LIMIT })
    .filter((t) => t.outcome !== undefined);
  if (done.length === 0) return {};
  return {
    successRate: done.filter((t) => t.outcome?.success).length / done.length,
    meanSteps: done.reduce((sum, t) => sum + t.stepCount, 0) / done.length,
  };
}

function perTaskTable(ctx: UiContext, run: RunRecord): Html {
  const perTask = new Map(
    list(record(run.summary).perTask)
      .map(record)
      .map((r) => [String(r.taskId), r]),
  );
  const trees = new Map(ctx.store.listTrees(run.id).map((t) => [t.taskId, t]));
  const rows = ctx.store.listTasks(run.id).map((t) => {
    const count = ctx.store.countTrajectories(run.id, { taskId: t.id });
    const s = perTask.get(t.id) ?? tallied(ctx, run.id, t.id, count);
    const tree = trees.get(t.id);
    return [
      html`<a class="task-link" href="${href("/runs", run.id, "tasks", t.id)}">${t.id}</a>`,
      t.instruction.length > 140 ? `${t.instruction.slice(0, 140)}…` : t.instruction,
      t.split ?? "-",
      String(t.tier ?? "-"),
      count,
      typeof s.successRate === "number" ? percent(s.successRate) : "-",
      fixed(s.meanSteps, 2),
      tree ? html`<a class="tree-link" href="${href("/trees", tree.id)}">tree</a>` : "",
    ];
  });
  return table(
    ["task", "instruction", "split", "tier", "trajectories", "success", "mean steps", "search"],
    rows,
    {
      numeric: [4, 5, 6],
      id: "tasks",
    },
  );
}

function treesTable(ctx: UiContext, run: RunRecord): Html {
  const rows = ctx.store.listTrees(run.id).map((t) => {
    const stats = record(t.data.stats);
    return [
      html`<a class="tree-link" href="${href("/trees", t.id)}">${t.id}</a>`,
      t.taskId,
      t.status,
      ctx.store.countNodes(t.id),
      String(stats.leaves ?? "-"),
      String(stats.successes ?? "-"),
      percent(stats.successRate),
    ];
  });
  return table(["tree", "task", "status", "nodes", "leaves", "successes", "success rate"], rows, {
    numeric: [3, 4, 5, 6],
    id: "trees",
  });
}

function sklTable(summary: Record<string, unknown>): Html {
  const rows = list(summary.methods).map(record);
  const fields = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((f) => f !== "method");
  return table(
    ["method", ...fields],
    rows.map((r) => [String(r.method), ...fields.map((f) => fixed(r[f]))]),
    { numeric: fields.map((_, i) => i + 1), id: "skl-methods" },
  );
}

/** One run: its status, configuration, per-task table and the sections its kind has. */
export function runPage(ctx: UiContext, runId: string): PageResult {
  const run = ctx.store.getRun(runId);
  if (!run) return { notFound: `no run ${runId} in the store` };
  const summary = record(run.summary);
  const sections: Html[] = [];
  if (summary.pass !== undefined) {
    const condition =
      typeof summary.condition === "string"
        ? html` (${summary.condition} condition — see <a href="/robustness">robustness</a>)`
        : "";
    sections.push(html`<h2>Evaluation: pass@k per split / tier${condition}</h2>${passTable(summary.pass)}`);
    if (typeof summary.entropyBits === "number")
      sections.push(html`<p>Mean policy entropy: ${fixed(summary.entropyBits)} bits</p>`);
  }
  if (Array.isArray(summary.methods))
    sections.push(
      html`<h2>SKL methods</h2>${sklTable(summary)}<p><a href="/knowledge">Learning curves and knowledge tables</a></p>`,
    );
  if (ctx.store.listTrees(run.id).length > 0)
    sections.push(html`<h2>Search trees</h2>${treesTable(ctx, run)}`);
  const body = html`<div class="cards"><div class="card">kind<b>${run.kind}</b></div><div class="card">status<b>${statusBadge(run.status)}</b></div>
<div class="card">trajectories<b>${ctx.store.countTrajectories(run.id)}</b></div><div class="card">seed<b>${run.seed}</b></div>
<div class="card">created<b>${isoTime(run.createdAtMs)}</b></div></div>
<h2>Tasks</h2>${perTaskTable(ctx, run)}${sections}
<details><summary>Configuration</summary><pre>${pretty(run.config)}</pre></details>
<details><summary>Summary</summary><pre>${pretty(run.summary)}</pre></details>
<p class="muted">code ${run.codeVersion}</p>`;
  return { html: page(`Run ${run.id}`, [{ label: "Runs", href: "/" }, { label: run.id }], body).value };
}
