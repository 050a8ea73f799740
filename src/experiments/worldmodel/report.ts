import {
  formatAblationTable,
  formatFamiliesTable,
  formatFigure,
  formatLearningCurveTable,
  formatMultiTurnTable,
  formatTvNote,
  renderTable,
  type TableFormat,
} from "../../worldmodel/eval/index.ts";
import type { W2rResult } from "../../worldmodel/eval/w2r.ts";
import type { ExperimentReport, SettingResult } from "./experiment.ts";

const ratio = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));

/** The slip probabilities recovered from each FrozenLake worldbook against the truth. */
export function formatSlipTable(
  settings: ReadonlyArray<SettingResult>,
  format: TableFormat = "markdown",
): string {
  const rows = settings.flatMap((s) => {
    if (!s.slip) return [];
    const { truth, pooled, maxError, perDirection } = s.slip;
    const triple = (p: { intended: number; left: number; right: number }) =>
      `${p.intended.toFixed(3)} / ${p.left.toFixed(3)} / ${p.right.toFixed(3)}`;
    return [
      [s.label, "truth", triple(truth), "", ""],
      [
        s.label,
        "all moves",
        triple(pooled),
        String(perDirection.reduce((n, d) => n + d.support, 0)),
        maxError.toFixed(3),
      ],
      ...perDirection.map((d) => [
        s.label,
        d.direction,
        triple(d),
        String(d.support),
        Math.max(...(["intended", "left", "right"] as const).map((k) => Math.abs(d[k] - truth[k]))).toFixed(
          3,
        ),
      ]),
    ];
  });
  return renderTable(["setting", "move", "intended / left / right", "support", "max |err|"], rows, format);
}

const W2R_HEADERS = ["task", "episodes", "sim success", "real success", "real/sim", "reward agrees"];

/** W2R rows: one per task, then "(all)". */
function w2rRows(w2r: Omit<W2rResult, "episodes">): string[][] {
  return [...w2r.tasks, { taskId: "(all)", ...w2r.overall }].map((t) => [
    t.taskId,
    String(t.episodes),
    formatFigure(t.simulatedSuccess),
    formatFigure(t.realSuccess),
    ratio(t.ratio),
    formatFigure(t.rewardAgreement),
  ]);
}

/** One W2R result per task: simulated and real success, their ratio, agreement of the final reward. */
export function formatW2rResult(w2r: Omit<W2rResult, "episodes">, format: TableFormat = "markdown"): string {
  return renderTable(W2R_HEADERS, w2rRows(w2r), format);
}

/** W2R per setting and task. */
export function formatW2rTable(
  settings: ReadonlyArray<SettingResult>,
  format: TableFormat = "markdown",
): string {
  return renderTable(
    ["setting", ...W2R_HEADERS],
    settings.flatMap((s) => w2rRows(s.w2r).map((row) => [s.label, ...row])),
    format,
  );
}

/** report.md: the one families × systems table, then slip recovery, W2R, per-family details. */
export function formatExperimentReport(report: ExperimentReport): string {
  const s = report.settings;
  const out: string[] = [
    "# World models from traces: per-family experiment",
    "",
    `Seed \`${report.seed}\`, scale ${report.scale}, ${report.seconds.toFixed(1)} s in all.`,
    "",
    "## Next-state fidelity on held-out episodes (families × systems)",
    "",
    formatFamiliesTable(s.map((r) => ({ family: r.label, fidelity: r.eval.fidelity }))),
    "",
    "## Traces and worldbooks",
    "",
    renderTable(
      [
        "setting",
        "episodes",
        "transitions",
        "build / val / test",
        "rules (supported/tentative/conflicted, stochastic)",
        "seconds",
      ],
      s.map((r) => [
        r.label,
        String(r.traces.episodes),
        String(r.traces.transitions),
        `${r.traces.build} / ${r.traces.validation} / ${r.traces.test}`,
        `${r.rules.total} (${r.rules.supported}/${r.rules.tentative}/${r.rules.conflicted}, ${r.rules.stochastic})`,
        r.seconds.toFixed(1),
      ]),
    ),
    "",
  ];
  if (report.failures.length > 0)
    out.push(
      "## Settings that failed",
      "",
      ...report.failures.map(
        (f) => `- ${f.label}: \`${f.error.code}\` (${f.error.category}) ${f.error.message}`,
      ),
      "",
    );
  if (s.some((r) => r.slip))
    out.push("## FrozenLake slip probabilities: recovered vs truth", "", formatSlipTable(s), "");
  out.push("## World-to-real (W2R)", "", formatW2rTable(s), "");
  for (const r of s) {
    out.push(`## ${r.label}`, "", formatTvNote(r.eval.fidelity), "");
    if (r.eval.multiTurn)
      out.push("Multi-turn consistency (open loop):", "", formatMultiTurnTable(r.eval.multiTurn), "");
    if (r.eval.ablations) out.push("Ablations (full system):", "", formatAblationTable(r.eval.ablations), "");
    if (r.eval.learningCurve)
      out.push(
        `Learning curve ([SVG](learning-curve-${r.name}.svg)):`,
        "",
        formatLearningCurveTable(r.eval.learningCurve),
        "",
      );
  }
  return `${out.join("\n")}\n`;
}
