import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { MANIFEST_FILE, readWorldbook, type Worldbook } from "../../worldmodel/index.ts";
import {
  formatOutcomes,
  RULE_COLUMNS,
  ruleCounts,
  ruleDetail,
  ruleRow,
} from "../../worldmodel/worldbook/describe.ts";
import { href, html } from "../html.ts";
import { page, table } from "../layout.ts";
import type { PageResult, UiContext } from "../ui-context.ts";

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Worldbook directories: those given with `--worldbook`, then those directly under the store directory. */
export function discoverWorldbooks(storeDir: string, given: ReadonlyArray<string>): string[] {
  const found = given.map((d) => resolve(d));
  let names: string[] = [];
  try {
    names = readdirSync(storeDir).sort();
  } catch {
    names = [];
  }
  for (const name of names) {
    const dir = resolve(join(storeDir, name));
    if (!found.includes(dir) && isDirectory(dir) && existsSync(join(dir, MANIFEST_FILE))) found.push(dir);
  }
  return found;
}

function load(ctx: UiContext, index: number): { dir: string; book: Worldbook } | { notFound: string } {
  const dir = ctx.worldbooks[index];
  if (dir === undefined) return { notFound: `no worldbook number ${index}` };
  return { dir, book: readWorldbook(dir) };
}

/** The worldbooks the dashboard knows, with their rule counts. */
export function worldbooksPage(ctx: UiContext): string {
  const rows = ctx.worldbooks.map((dir, i) => {
    try {
      const book = readWorldbook(dir);
      const c = ruleCounts(book.rules);
      return [
        html`<a class="worldbook-link" href="${href("/worldbooks", i)}">${dir}</a>`,
        book.manifest.families.join(", "),
        html`${book.manifest.episodes}`,
        html`${book.manifest.transitions}`,
        html`${c.total}`,
        html`${c.supported}`,
        html`${book.outcomeRules.length}`,
      ];
    } catch (error) {
      return [dir, html`<span class="bad">${(error as Error).message}</span>`, "", "", "", "", ""];
    }
  });
  const body = html`${table(["worldbook", "families", "episodes", "transitions", "rules", "supported", "outcome rules"], rows, { numeric: [2, 3, 4, 5, 6], id: "worldbooks" })}
<p class="muted">Worldbooks come from <code>rehearsal ui --worldbook DIR</code> and from directories under the store directory that hold a ${MANIFEST_FILE}.</p>`;
  return page("Worldbooks", [{ label: "Runs", href: "/" }, { label: "Worldbooks" }], body).value;
}

/** One worldbook: its rules with support, confidence and status, and its outcome rules. */
export function worldbookPage(ctx: UiContext, index: number): PageResult {
  const found = load(ctx, index);
  if ("notFound" in found) return found;
  const { dir, book } = found;
  const rows = book.rules.map((rule) => {
    const [id, ...rest] = ruleRow(rule);
    return [
      html`<a class="rule-link" href="${href("/worldbooks", index, "rules", rule.id)}">${id}</a>`,
      ...rest.map((c) => html`<span class="lines">${c}</span>`),
    ];
  });
  const c = ruleCounts(book.rules);
  const body = html`<div class="cards"><div class="card">rules<b>${c.total}</b></div><div class="card">supported<b>${c.supported}</b></div>
<div class="card">tentative<b>${c.tentative}</b></div><div class="card">conflicted<b>${c.conflicted}</b></div><div class="card">episodes<b>${book.manifest.episodes}</b></div></div>
<p class="muted">${dir} · sources ${book.manifest.sources.join(", ")}</p>
<h2>Rules</h2>${table([...RULE_COLUMNS], rows, { numeric: [4, 5, 6, 7], id: "rules" })}
<h2>Outcome and consequence rules</h2>${table(
    ["field", "path", "value", "when", "support"],
    book.outcomeRules.map((r) => [
      r.field,
      r.path ?? "-",
      JSON.stringify(r.value),
      JSON.stringify(r.when),
      html`${r.support}`,
    ]),
    { numeric: [4] },
  )}`;
  return {
    html: page(
      `Worldbook ${book.manifest.families.join(", ")}`,
      [{ label: "Worldbooks", href: "/worldbooks" }, { label: dir }],
      body,
    ).value,
  };
}

/** One rule: its fields and the evidence with provenance (source, episode, task, step). */
export function rulePage(ctx: UiContext, index: number, ruleId: string): PageResult {
  const found = load(ctx, index);
  if ("notFound" in found) return found;
  const { book } = found;
  if (!book.rules.some((r) => r.id === ruleId)) return { notFound: `no rule ${ruleId} in this worldbook` };
  const detail = ruleDetail(book, ruleId);
  const evidence = [
    ...detail.supporting.map((e) => ["supporting", e] as const),
    ...detail.counterexamples.map((e) => ["counterexample", e] as const),
    ...detail.withheld.map((e) => ["withheld", e] as const),
  ];
  const body = html`<pre>${formatOutcomes(detail.rule).join("\n")}</pre>
${table(
  ["column", "value"],
  RULE_COLUMNS.map((col, i) => [col, html`<span class="lines">${ruleRow(detail.rule)[i]}</span>`]),
)}
<h2>Evidence (${evidence.length})</h2>${table(
    ["role", "evidence", "source", "episode", "task", "step", "facts", "reward"],
    evidence
      .slice(0, 500)
      .map(([role, e]) => [
        role,
        e.id,
        e.provenance.source,
        e.provenance.episodeId,
        e.provenance.taskId,
        html`${e.provenance.step}`,
        e.facts
          .map((f) => `${f.path}: ${JSON.stringify(f.before ?? null)} → ${JSON.stringify(f.after ?? null)}`)
          .join("; "),
        html`${e.outcome.reward}`,
      ]),
    { numeric: [5, 7], id: "evidence" },
  )}`;
  const crumbs = [
    { label: "Worldbooks", href: "/worldbooks" },
    { label: found.dir, href: href("/worldbooks", index) },
    { label: ruleId },
  ];
  return { html: page(`Rule ${ruleId}`, crumbs, body).value };
}
