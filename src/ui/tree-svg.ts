import type { TreeNodeRecord } from "../store/index.ts";
import { escapeHtml, href } from "./html.ts";

/** Fill colours of leaves: by noise tag when the search had noise, else by success. */
export const NODE_COLOURS: Record<string, string> = {
  success: "#1a7f37",
  failure: "#c62828",
  clean_success: "#1a7f37",
  clean_failure: "#c62828",
  noisy_success: "#0e9f9a",
  noisy_failure: "#ef8a17",
  recovery_success: "#2457c5",
  recovery_failure: "#8e44ad",
  dropped: "#9aa0a6",
  open: "#ffffff",
};

/** The colour key of a node: its noise tag, else success/failure for a leaf, dropped, or open. */
export function nodeColourKey(node: TreeNodeRecord): string {
  const data = node.data as { outcome?: { success?: boolean }; noise?: { tag?: string } };
  if (node.status === "dropped") return "dropped";
  if (data.noise?.tag) return data.noise.tag;
  if (node.status === "leaf") return data.outcome?.success ? "success" : "failure";
  return "open";
}

export interface PlacedNode {
  node: TreeNodeRecord;
  /** Where the node's own steps begin (its branch point on the parent's row) and end. */
  x0: number;
  x: number;
  y: number;
  parentY: number | undefined;
}

const DX = 34;
const DY = 15;
const PAD = 14;

/** The step at which a node branches off its parent: its `fromStep`, else the parent's end. */
function branchStep(node: TreeNodeRecord, parent: TreeNodeRecord | undefined): number {
  const from = (node.data as { fromStep?: unknown }).fromStep;
  if (typeof from === "number" && from <= node.depth) return from;
  return parent ? Math.min(parent.depth, node.depth) : 0;
}

/**
 * Lays a search tree out as a branch graph: one row per node in depth-first order (children in
 * insertion order, right under their parent), x by step. A node is a segment from the step where it
 * branches off its parent (its `fromStep`: search nodes share their parent's prefix up to there) to its
 * last step, where its dot sits; a connector drops from the parent's row at the branch step.
 */
export function layoutTree(nodes: ReadonlyArray<TreeNodeRecord>): {
  placed: PlacedNode[];
  width: number;
  height: number;
} {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string | null, TreeNodeRecord[]>();
  for (const n of nodes) {
    const parent = n.parentId !== null && byId.has(n.parentId) ? n.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(n);
    children.set(parent, list);
  }
  const placed: PlacedNode[] = [];
  let maxDepth = 0;
  const rowOf = new Map<string, number>();
  // Iterative pre-order (trees can be deep): a node's row comes before its children's.
  const stack = [...(children.get(null) ?? [])].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as TreeNodeRecord;
    const parent = node.parentId === null ? undefined : byId.get(node.parentId);
    const y = PAD + DY * placed.length;
    rowOf.set(node.id, y);
    maxDepth = Math.max(maxDepth, node.depth);
    placed.push({
      node,
      x0: PAD + DX * branchStep(node, parent),
      x: PAD + DX * node.depth,
      y,
      parentY: parent ? rowOf.get(parent.id) : undefined,
    });
    stack.push(...[...(children.get(node.id) ?? [])].reverse());
  }
  return {
    placed,
    width: PAD * 2 + DX * maxDepth + 8,
    height: PAD * 2 + DY * Math.max(placed.length - 1, 0) + 8,
  };
}

/** The tree as an SVG: edges, then one linked circle per node (click a node to see its path). */
export function renderTreeSvg(treeId: string, nodes: ReadonlyArray<TreeNodeRecord>): string {
  const { placed, width, height } = layoutTree(nodes);
  const edges: string[] = [];
  const dots: string[] = [];
  for (const p of placed) {
    const drop = p.parentY === undefined ? "" : `M${p.x0},${p.parentY} V${p.y} `;
    edges.push(`<path d="${drop}M${p.x0},${p.y} H${p.x}" fill="none" stroke="#b7bec8" stroke-width="1.5"/>`);
    const key = nodeColourKey(p.node);
    const data = p.node.data as { outcome?: { reason?: string }; noise?: { tag?: string } };
    const tip = [p.node.id, p.node.status, `depth ${p.node.depth}`, data.noise?.tag, data.outcome?.reason]
      .filter(Boolean)
      .join(" · ");
    const link = href("/trees", treeId, "nodes", p.node.id);
    dots.push(
      `<a href="${escapeHtml(link)}" class="node node-${escapeHtml(p.node.status)}" data-node="${escapeHtml(p.node.id)}" data-colour="${escapeHtml(key)}"><circle cx="${p.x}" cy="${p.y}" r="5.5" fill="${NODE_COLOURS[key] ?? "#fff"}" stroke="#4a5361" stroke-width="1"><title>${escapeHtml(tip)}</title></circle></a>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="search tree">${edges.join("")}${dots.join("")}</svg>`;
}
