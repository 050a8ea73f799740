import { type Html, type HtmlValue, html } from "./html.ts";

export interface Crumb {
  label: string;
  href?: string;
}

/** The page shell: header navigation, breadcrumbs, the title and the body. */
export function page(title: string, crumbs: ReadonlyArray<Crumb>, body: HtmlValue): Html {
  const trail = crumbs.map(
    (c, i) => html`${i > 0 ? " / " : ""}${c.href ? html`<a href="${c.href}">${c.label}</a>` : c.label}`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Rehearsal</title><link rel="stylesheet" href="/assets/ui.css"></head>
<body><header><a class="brand" href="/">Rehearsal</a><a href="/">Runs</a><a href="/robustness">Robustness</a>
<a href="/knowledge">Knowledge</a><a href="/worldbooks">Worldbooks</a></header>
<main>${crumbs.length > 0 ? html`<nav class="crumbs">${trail}</nav>` : ""}<h1>${title}</h1>${body}</main>
<script src="/assets/ui.js"></script></body></html>`;
}

/** A table with a header row; `numeric` marks the columns aligned right. */
export function table(
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<HtmlValue>>,
  options: { numeric?: ReadonlyArray<number>; id?: string } = {},
): Html {
  const num = new Set(options.numeric ?? []);
  const cls = (i: number) => (num.has(i) ? "num" : "");
  if (rows.length === 0) return html`<p class="empty">none</p>`;
  return html`<table${options.id ? html` id="${options.id}"` : ""}><thead><tr>${headers.map((h, i) => html`<th class="${cls(i)}">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c, i) => html`<td class="${cls(i)}">${c}</td>`)}</tr>`)}</tbody></table>`;
}

/** Previous / next links of a paginated listing (`?page=N`, from 0). */
export function pager(
  base: string,
  pageIndex: number,
  pageSize: number,
  total: number,
  param = "page",
): Html {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pages <= 1) return html``;
  const sep = base.includes("?") ? "&" : "?";
  const link = (p: number, label: string, rel: string) =>
    p >= 0 && p < pages
      ? html`<a rel="${rel}" href="${base}${sep}${param}=${p}">${label}</a>`
      : html`<span class="muted">${label}</span>`;
  return html`<div class="pager">${link(pageIndex - 1, "← previous", "prev")}<span>page ${pageIndex + 1} of ${pages} (${total} rows)</span>${link(pageIndex + 1, "next →", "next")}</div>`;
}
