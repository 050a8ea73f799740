/** The dashboard's stylesheet and script, served at /assets/ui.css and /assets/ui.js (no build step). */
export const UI_CSS = `
:root { --fg: #1d2430; --muted: #5b6472; --line: #d9dde3; --bg: #f6f7f9; --ok: #1a7f37; --bad: #c62828;
  --accent: #2457c5; --warn: #b26a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { background: #1d2430; color: #fff; padding: 10px 20px; display: flex; gap: 20px; align-items: baseline; }
header a { color: #cfd8ea; text-decoration: none; }
header a.brand { color: #fff; font-weight: 600; font-size: 16px; }
main { padding: 16px 20px 40px; max-width: 1400px; }
h1 { font-size: 20px; margin: 4px 0 12px; word-break: break-all; }
h2 { font-size: 16px; margin: 22px 0 8px; }
a { color: var(--accent); }
nav.crumbs { color: var(--muted); margin-bottom: 6px; font-size: 13px; }
table { border-collapse: collapse; background: #fff; border: 1px solid var(--line); margin: 6px 0 12px; }
th, td { padding: 4px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px 10px; overflow: auto; max-height: 420px;
  white-space: pre-wrap; word-break: break-word; margin: 4px 0 10px; }
.ok { color: var(--ok); font-weight: 600; } .bad { color: var(--bad); font-weight: 600; }
.muted { color: var(--muted); } .warn { color: var(--warn); }
.pager { margin: 8px 0; display: flex; gap: 12px; align-items: center; }
.step-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.step-grid img { max-width: 100%; border: 1px solid var(--line); background: #fff; }
.cards { display: flex; gap: 10px; flex-wrap: wrap; margin: 8px 0; }
.card { background: #fff; border: 1px solid var(--line); padding: 6px 12px; min-width: 120px; }
.card b { display: block; font-size: 18px; }
.tree-wrap { background: #fff; border: 1px solid var(--line); overflow: auto; max-height: 760px; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 50%; margin-right: 4px;
  vertical-align: -1px; }
svg a:hover circle { stroke: #000; stroke-width: 2px; }
.empty { color: var(--muted); font-style: italic; }
.lines { white-space: pre-line; }
`;

export const UI_JS = `
(function () {
  // Arrow keys step through a trajectory: the step page marks its neighbours with rel=prev / rel=next.
  document.addEventListener("keydown", function (event) {
    if (event.target && /INPUT|TEXTAREA|SELECT/.test(event.target.tagName)) return;
    var rel = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
    if (!rel) return;
    var link = document.querySelector('a[rel="' + rel + '"]');
    if (link) window.location.href = link.getAttribute("href");
  });
})();
`;
