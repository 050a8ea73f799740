import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/index.ts";
import { escapeHtml, href, html, raw } from "../../src/ui/html.ts";
import { robustnessGroups, robustnessPage } from "../../src/ui/pages/robustness-page.ts";
import { runPage } from "../../src/ui/pages/run-page.ts";
import { runsPage } from "../../src/ui/pages/runs-page.ts";
import { taskPage } from "../../src/ui/pages/task-page.ts";
import { trajectoryPage } from "../../src/ui/pages/trajectory-page.ts";
import { pathSteps } from "../../src/ui/pages/tree-page.ts";
import { layoutTree, nodeColourKey, renderTreeSvg } from "../../src/ui/tree-svg.ts";
import type { UiContext } from "../../src/ui/ui-context.ts";

const EVIL = `"><script>alert(1)</script><img src=x onerror='alert(2)'>\`&`;

function htmlOf(result: { html: string } | { notFound: string }): string {
  if ("notFound" in result) throw new Error(result.notFound);
  return result.html;
}

describe("html escaping", () => {
  it("escapes every interpolated value, keeps Html as is and joins arrays", () => {
    expect(escapeHtml(EVIL)).toBe(
      "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&#39;alert(2)&#39;&gt;&#96;&amp;",
    );
    const out = html`<a title="${EVIL}">${[EVIL, html`<b>${1}</b>`]}</a>${raw("<i>x</i>")}${null}${undefined}${false}`;
    expect(out.value).not.toContain("<script>");
    expect(out.value).not.toContain("<img");
    expect(out.value).toContain("<b>1</b>");
    expect(out.value).toContain("<i>x</i>");
    expect(out.value.match(/"/g)).toHaveLength(2); // only the attribute's own quotes
    expect(href("/runs", "a/b?c#d", "tasks", "x y")).toBe("/runs/a%2Fb%3Fc%23d/tasks/x%20y");
  });

  it("renders task names, instructions, observations and model output from the store escaped", () => {
    const store = createMemoryStore();
    store.createRun({
      id: "r1",
      kind: "run",
      seed: "0",
      config: { note: EVIL },
      codeVersion: EVIL,
      createdAtMs: 0,
    });
    store.putTask("r1", {
      id: EVIL,
      instruction: EVIL,
      family: "web",
      seed: 0,
      split: "train",
      verifier: { kind: "x" },
      tags: [],
    });
    store.startTrajectory({
      id: "t1",
      runId: "r1",
      taskId: EVIL,
      episodeIndex: 0,
      seed: 0,
      policy: EVIL,
      startedAtMs: 0,
    });
    store.appendStep("t1", {
      index: 0,
      observation: { text: EVIL, url: EVIL },
      action: null,
      raw: EVIL,
      parseError: { code: "parse", message: EVIL },
      reward: 0,
      terminated: false,
      truncated: true,
      info: { noise: { fired: [{ generator: EVIL }], recovered: [] } },
      timeMs: 0,
    });
    store.finishTrajectory("t1", {
      status: "complete",
      endedAtMs: 1,
      outcome: { reward: 0, success: false, reason: EVIL, metrics: {} },
    });
    const ctx: UiContext = { store, storeDir: "/nonexistent", worldbooks: [], sklDirs: [] };
    const pages = [
      runsPage(ctx),
      htmlOf(runPage(ctx, "r1")),
      htmlOf(taskPage(ctx, "r1", EVIL, {})),
      htmlOf(trajectoryPage(ctx, "t1", {})),
    ];
    for (const page of pages) {
      expect(page).not.toContain("<script>alert");
      expect(page).not.toContain("<img src=x");
      expect(page).not.toContain("onerror='");
    }
    expect(pages[1]).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(pages[3]).toContain("fired &quot;&gt;&lt;script&gt;");
    expect(pages[2]).toContain(`href="/trajectories/t1"`);
    expect(runPage(ctx, "nope")).toEqual({ notFound: "no run nope in the store" });
  });
});

describe("tree drawing", () => {
  const node = (
    id: string,
    parentId: string | null,
    depth: number,
    status: "alive" | "leaf",
    data: Record<string, unknown> = {},
  ) => ({
    id,
    treeId: "t",
    parentId,
    depth,
    status,
    data,
  });

  it("draws one row per node in depth-first order, each branching off its parent at its fromStep", () => {
    const nodes = [
      node("root", null, 0, "alive"),
      node("a", "root", 2, "leaf", { outcome: { success: true } }),
      node("b", "root", 4, "leaf", { outcome: { success: false }, fromStep: 1 }),
      node("c", "b", 5, "leaf", { outcome: { success: false }, fromStep: 3 }),
      node("d", "root", 3, "leaf", { outcome: { success: true }, noise: { tag: "recovery_success" } }),
    ];
    const { placed } = layoutTree(nodes);
    expect([...placed].sort((p, q) => p.y - q.y).map((p) => p.node.id)).toEqual(["root", "a", "b", "c", "d"]);
    const at = Object.fromEntries(placed.map((p) => [p.node.id, p]));
    expect(at.c?.parentY).toBe(at.b?.y);
    expect(at.c?.x0).toBeLessThan(at.b?.x ?? 0); // branches off b at step 3, before b's end (step 4)
    expect(at.c?.x0).toBeGreaterThan(at.b?.x0 ?? 0);
    expect(at.d?.x0).toBe(at.root?.x); // no fromStep: branches at the parent's end
    expect(at.root?.parentY).toBeUndefined();
    expect(nodes.map(nodeColourKey)).toEqual(["open", "success", "failure", "failure", "recovery_success"]);
    const svg = renderTreeSvg("tr<x>", nodes);
    expect(svg.match(/<circle/g)).toHaveLength(5);
    expect(svg.match(/<path/g)).toHaveLength(5);
    expect(svg.match(/ V/g)).toHaveLength(4); // a connector for every node but the root
    expect(svg).toContain(`href="/trees/tr%3Cx%3E/nodes/d"`);
  });
});

describe("a leaf's path", () => {
  it("takes each ancestor's steps only up to where the next node branches off", () => {
    const s = (index: number) => ({
      index,
      observation: { text: `${index}` },
      action: null,
      raw: "",
      reward: 0,
      terminated: false,
      truncated: false,
      info: {},
      timeMs: 0,
    });
    const n = (id: string, fromStep: number, depth: number) => ({
      id,
      treeId: "t",
      parentId: null,
      depth,
      status: "leaf" as const,
      data: { fromStep, steps: Array.from({ length: depth - fromStep }, (_, i) => s(fromStep + i)) },
    });
    const path = [n("root", 0, 4), n("b", 2, 6), n("c", 3, 5)];
    expect(pathSteps(path).map((x) => x.index)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("robustness", () => {
  it("groups the clean and noisy runs of a noisy eval by prefix into one cross table", () => {
    const store = createMemoryStore();
    const pass = (p1: number) => [{ group: "all", tasks: 2, passAt: { "1": p1 }, passHat: { "1": p1 } }];
    for (const [policy, condition, p1] of [
      ["heuristic", "clean", 0.75],
      ["heuristic", "noisy", 0.5],
      ["random", "clean", 0.25],
      ["random", "noisy", 0],
    ] as const) {
      const id = `evn-1-${policy}-${condition}`;
      store.createRun({ id, kind: "eval", seed: "0", config: { policy }, codeVersion: "t", createdAtMs: 0 });
      store.updateRun(id, { status: "complete", summary: { pass: pass(p1), condition }, updatedAtMs: 1 });
    }
    const ctx: UiContext = { store, storeDir: "/nonexistent", worldbooks: [], sklDirs: [] };
    const groups = robustnessGroups(ctx);
    expect(groups.map((g) => g.prefix)).toEqual(["evn-1"]);
    expect(groups[0]?.rows.get("heuristic")).toMatchObject({ clean: { "1": 0.75 }, noisy: { "1": 0.5 } });
    const page = robustnessPage(ctx);
    const cross = (page.split('<table id="cross">')[1] ?? "").split("</table>")[0] ?? "";
    expect(cross).toContain("drop@1");
    expect(cross.match(/<tr>/g)).toHaveLength(3);
    expect(cross).toMatch(/heuristic[\s\S]*0\.75[\s\S]*0\.5[\s\S]*0\.25/);
  });
});
