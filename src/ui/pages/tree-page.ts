import type { StepRecord } from "../../core/index.ts";
import type { TreeNodeRecord } from "../../store/index.ts";
import { fixed, list, pageParam, percent, pretty, record } from "../format.ts";
import { type Html, href, html, raw } from "../html.ts";
import { page, pager, table } from "../layout.ts";
import { NODE_COLOURS, nodeColourKey, renderTreeSvg } from "../tree-svg.ts";
import type { PageResult, UiContext } from "../ui-context.ts";
import { outcomeCell, stepDetail, stepsTable } from "./step-view.ts";

/** Trees up to this many nodes are drawn; larger ones are listed page by page only. */
export const MAX_DRAWN_NODES = 5000;
const LEAF_PAGE = 50;

function legend(nodes: ReadonlyArray<TreeNodeRecord>): Html {
  const keys = [...new Set(nodes.map(nodeColourKey))].sort();
  return html`<p class="legend">${keys.map((k) => html`<span><i style="background:${NODE_COLOURS[k] ?? "#fff"};border:1px solid #4a5361"></i>${k}</span>`)}</p>`;
}

function leafRow(treeId: string, n: TreeNodeRecord): Html[] {
  const data = n.data as { outcome?: Parameters<typeof outcomeCell>[0]; noise?: { tag?: string } };
  return [
    html`<a class="leaf-link" href="${href("/trees", treeId, "nodes", n.id)}">${n.id}</a>`,
    html`${n.depth}`,
    outcomeCell(data.outcome),
    html`${data.noise?.tag ?? "-"}`,
  ];
}

/** A search tree: counters, the drawn tree (click a node for its path) and its leaves page by page. */
export function treePage(ctx: UiContext, treeId: string, query: Record<string, unknown>): PageResult {
  const tree = ctx.store.getTree(treeId);
  if (!tree) return { notFound: `no search tree ${treeId} in the store` };
  const total = ctx.store.countNodes(treeId);
  const leaves = ctx.store.countNodes(treeId, { status: "leaf" });
  const drawn = total <= MAX_DRAWN_NODES ? ctx.store.listNodes(treeId) : undefined;
  const pageIndex = pageParam(query.page);
  const leafPage = ctx.store.listNodes(
    treeId,
    { status: "leaf" },
    { offset: pageIndex * LEAF_PAGE, limit: LEAF_PAGE },
  );
  const stats = record(tree.data.stats);
  const counters = record(tree.data.counters);
  const picture = drawn
    ? html`${legend(drawn)}<div class="tree-wrap">${raw(renderTreeSvg(treeId, drawn))}</div>`
    : html`<p class="warn">${total} nodes: too many to draw (at most ${MAX_DRAWN_NODES}); the leaves are listed below.</p>`;
  const body = html`<div class="cards"><div class="card">nodes<b>${total}</b></div><div class="card">leaves<b>${leaves}</b></div>
<div class="card">successes<b>${String(stats.successes ?? "-")}</b></div><div class="card">success rate<b>${percent(stats.successRate)}</b></div>
<div class="card">env steps<b>${String(counters.envSteps ?? stats.envSteps ?? "-")}</b></div></div>
<p class="muted">run <a href="${href("/runs", tree.runId)}">${tree.runId}</a> · task ${tree.taskId} · seed ${tree.seed} · ${tree.status}</p>
<h2>Tree</h2>${picture}
<h2>Leaves</h2>${pager(href("/trees", treeId), pageIndex, LEAF_PAGE, leaves)}
${table(
  ["leaf", "depth", "outcome", "noise tag"],
  leafPage.map((n) => leafRow(treeId, n)),
  { numeric: [1], id: "leaves" },
)}
<details><summary>Tree data</summary><pre>${pretty(tree.data)}</pre></details>`;
  const crumbs = [
    { label: "Runs", href: "/" },
    { label: tree.runId, href: href("/runs", tree.runId) },
    { label: treeId },
  ];
  return { html: page(`Search tree ${tree.taskId}`, crumbs, body).value };
}

/** The gate decisions of a node: at which step it branched, why, and its buckets (fingerprint, size). */
function gateTable(data: Record<string, unknown>): Html {
  const rows = list(data.gateLog).map(record);
  return table(
    ["step", "reason", "buckets", "invalid", "probes"],
    rows.map((g) => [
      String(g.step),
      String(g.reason),
      list(g.buckets)
        .map((b) => (Array.isArray(b) ? `${b[0]} ×${b[1]}` : String(b)))
        .join(", "),
      String(g.invalid ?? 0),
      String(g.probes ?? 0),
    ]),
    { id: "gates" },
  );
}

/**
 * The steps of a root-to-node path: each node's own steps up to where the next node on the path
 * branches off it (its `fromStep`), then the last node's own steps.
 */
export function pathSteps(path: ReadonlyArray<TreeNodeRecord>): StepRecord[] {
  return path.flatMap((n, i) => {
    const own = list(n.data.steps) as StepRecord[];
    const next = path[i + 1];
    const until =
      next === undefined
        ? Number.POSITIVE_INFINITY
        : Number((next.data as { fromStep?: unknown }).fromStep ?? n.depth);
    return own.filter((s) => s.index < until);
  });
}

/** One node and the path from the root to it: every node on it with its own steps, in order. */
export function nodePage(ctx: UiContext, treeId: string, nodeId: string): PageResult {
  const tree = ctx.store.getTree(treeId);
  const target = ctx.store.getNode(treeId, nodeId);
  if (!tree || !target) return { notFound: `no node ${nodeId} in search tree ${treeId}` };
  const path: TreeNodeRecord[] = [target];
  const seen = new Set([target.id]);
  for (let n = target; n.parentId !== null; ) {
    const parent = ctx.store.getNode(treeId, n.parentId);
    if (!parent || seen.has(parent.id)) break;
    seen.add(parent.id);
    path.unshift(parent);
    n = parent;
  }
  const data = target.data as {
    outcome?: Parameters<typeof outcomeCell>[0];
    noise?: unknown;
    endReason?: string;
  };
  const steps = pathSteps(path);
  const lastStep = steps.at(-1);
  const pathRows = path.map((n) => [
    n.id === nodeId
      ? html`<b>${n.id}</b>`
      : html`<a class="path-link" href="${href("/trees", treeId, "nodes", n.id)}">${n.id}</a>`,
    html`${n.status}`,
    html`${n.depth}`,
    html`${list(n.data.steps).length}`,
    html`${nodeColourKey(n)}`,
  ]);
  const body = html`<div class="cards"><div class="card">status<b>${target.status}</b></div><div class="card">outcome<b>${outcomeCell(data.outcome)}</b></div>
<div class="card">reward<b>${fixed(data.outcome?.reward)}</b></div><div class="card">depth<b>${target.depth}</b></div><div class="card">colour<b>${nodeColourKey(target)}</b></div></div>
${data.endReason ? html`<p>ended: ${data.endReason}</p>` : ""}
<h2>Path from the root</h2>${table(["node", "status", "depth", "own steps", "colour"], pathRows, { numeric: [2, 3], id: "path" })}
<h2>Steps on the path</h2>${stepsTable(steps)}
<h2>Gate decisions (buckets)</h2>${gateTable(target.data)}
${data.noise ? html`<h2>Noise</h2><pre class="noise">${pretty(data.noise)}</pre>` : ""}
${lastStep ? html`<h2>Last step of the path</h2>${stepDetail(lastStep)}` : ""}`;
  const crumbs = [
    { label: "Runs", href: "/" },
    { label: tree.runId, href: href("/runs", tree.runId) },
    { label: tree.taskId, href: href("/trees", treeId) },
    { label: nodeId },
  ];
  return { html: page(`Node ${nodeId}`, crumbs, body).value };
}
