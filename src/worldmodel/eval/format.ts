import type {
  AblationReport,
  FidelityMetric,
  FidelityReport,
  LearningCurve,
  MultiTurnReport,
  SystemFidelity,
} from "./report.ts";

export type TableFormat = "markdown" | "plain";

/** The metrics a fidelity table shows by default, with their column headers. */
export const FIDELITY_COLUMNS: ReadonlyArray<{ metric: FidelityMetric; header: string }> = [
  { metric: "exactMatch", header: "exact" },
  { metric: "fieldAccuracy", header: "field acc" },
  { metric: "changedFieldAccuracy", header: "changed acc" },
  { metric: "rewardAccuracy", header: "reward acc" },
  { metric: "terminationAccuracy", header: "done acc" },
  { metric: "textSimilarity", header: "text sim" },
  { metric: "unknownRate", header: "unknown" },
  { metric: "totalVariation", header: "TV" },
];

/** A figure as tables show it: three decimals; "n/a" for a rate nothing counted in. */
export function formatFigure(value: number | null | undefined): string {
  return value === null || value === undefined ? "n/a" : value.toFixed(3);
}

/** A table: markdown (pipes, a separator row) or plain (columns padded, a dashed rule under the header). */
export function renderTable(
  headers: ReadonlyArray<string>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  format: TableFormat = "markdown",
): string {
  if (format === "markdown") {
    const line = (cells: ReadonlyArray<string>) =>
      `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
    return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: ReadonlyArray<string>) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function columnsOf(metrics: ReadonlyArray<FidelityMetric> | undefined) {
  return metrics ? FIDELITY_COLUMNS.filter((c) => metrics.includes(c.metric)) : FIDELITY_COLUMNS;
}

function figures(s: SystemFidelity, columns: ReadonlyArray<{ metric: FidelityMetric }>): string[] {
  return columns.map((c) => formatFigure(s[c.metric]));
}

export interface TableOptions {
  format?: TableFormat;
  /** Metrics to show (default all of FIDELITY_COLUMNS), in FIDELITY_COLUMNS order. */
  metrics?: ReadonlyArray<FidelityMetric>;
}

/** Systems × metrics for one fidelity report. */
export function formatFidelityTable(report: FidelityReport, options: TableOptions = {}): string {
  const columns = columnsOf(options.metrics);
  return renderTable(
    ["system", "n", ...columns.map((c) => c.header)],
    report.systems.map((s) => [s.system, String(s.transitions), ...figures(s, columns)]),
    options.format,
  );
}

/** One line on the total-variation groups and the sampling-noise floor under a fidelity table. */
export function formatTvNote(report: FidelityReport): string {
  const { groups, repeatedGroups, meanGroupSize, noiseFloor } = report.tv;
  const floor = noiseFloor === null ? "unknown (true distribution not given)" : formatFigure(noiseFloor);
  return `TV over ${groups} (task, state, action) groups (${repeatedGroups} with 2+ transitions, mean size ${meanGroupSize.toFixed(2)}); sampling-noise floor (truth vs the same sample): ${floor}`;
}

/** Families × systems: one row per (family, system), the metrics as columns. */
export function formatFamiliesTable(
  results: ReadonlyArray<{ family: string; fidelity: FidelityReport }>,
  options: TableOptions = {},
): string {
  const columns = columnsOf(options.metrics);
  return renderTable(
    ["family", "system", "n", ...columns.map((c) => c.header)],
    results.flatMap(({ family, fidelity }) =>
      fidelity.systems.map((s) => [family, s.system, String(s.transitions), ...figures(s, columns)]),
    ),
    options.format,
  );
}

/** Multi-turn consistency, one row per report (system). */
export function formatMultiTurnTable(reports: ReadonlyArray<MultiTurnReport>, format?: TableFormat): string {
  return renderTable(
    [
      "system",
      "episodes",
      "never diverged",
      "mean first div",
      "median first div",
      "consistent@1",
      "consistent@5",
    ],
    reports.map((r) => [
      r.system,
      String(r.episodes),
      formatFigure(r.neverDiverged),
      formatFigure(r.meanFirstDivergence),
      formatFigure(r.medianFirstDivergence),
      formatFigure(r.consistency[0]),
      formatFigure(r.consistency[4]),
    ]),
    format,
  );
}

/** The ablation variants as rows of a fidelity table. */
export function formatAblationTable(report: AblationReport, options: TableOptions = {}): string {
  const columns = columnsOf(options.metrics);
  return renderTable(
    ["variant", "evidence", "abstractions", ...columns.map((c) => c.header)],
    report.variants.map((v) => [
      v.variant,
      v.useEvidence ? "yes" : "no",
      v.useAbstractions ? "yes" : "no",
      ...figures(v.fidelity, columns),
    ]),
    options.format,
  );
}

/** The learning curve as a table: one row per size, one column per (system, metric). */
export function formatLearningCurveTable(
  curve: LearningCurve,
  options: TableOptions = { metrics: ["exactMatch", "changedFieldAccuracy"] },
): string {
  const columns = columnsOf(options.metrics);
  const systems = [...new Set(curve.points.flatMap((p) => p.systems.map((s) => s.system)))];
  return renderTable(
    ["episodes", "transitions", ...systems.flatMap((s) => columns.map((c) => `${s} ${c.header}`))],
    curve.points.map((p) => [
      String(p.episodes),
      String(p.transitions),
      ...systems.flatMap((name) => {
        const s = p.systems.find((x) => x.system === name);
        return columns.map((c) => formatFigure(s?.[c.metric]));
      }),
    ]),
    options.format,
  );
}
