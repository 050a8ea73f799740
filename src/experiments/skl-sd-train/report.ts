import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import { CONTROL_OF, isControl, SD_MIXES, type SklSdResults, type SklSdRow } from "./results.ts";

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The table: one row per (seed, mix) with the examples and pass@1 on train / held-out maps, then the means. */
export function sklSdTable(results: SklSdResults): string {
  const w = 29;
  const lines = [
    `seed  ${"mix".padEnd(w)}examples (base/distill/reflect/extra base)  loss    train pass@1  held-out pass@1`,
  ];
  for (const r of results.rows) {
    const ex = `${r.examples.base}/${r.examples.distill}/${r.examples.reflect}/${r.examples.extraBase ?? 0}`;
    lines.push(
      `${String(r.seed).padEnd(6)}${r.mix.padEnd(w)}${ex.padEnd(44)}${(r.finalLoss === null ? "-" : r.finalLoss.toFixed(3)).padEnd(8)}${pct(r.train.pass1).padEnd(14)}${pct(r.heldout.pass1)}`,
    );
  }
  lines.push("", `${"mix".padEnd(w)}train pass@1 (mean)  held-out pass@1 (mean [min, max] over seeds)`);
  for (const s of results.summary)
    lines.push(
      `${s.mix.padEnd(w)}${pct(s.trainMean).padEnd(21)}${pct(s.heldoutMean)} [${pct(s.heldoutMin)}, ${pct(s.heldoutMax)}]`,
    );
  if (results.status !== "complete") lines.push("", `status: ${results.status} (the rows completed so far)`);
  return lines.join("\n");
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/**
 * pass@1 per mix (x: 0 random, 1 D_base, 2 +D_distill, 3 +D_reflect): means on both splits, held-out
 * per seed dashed, the size-matched D_base controls' held-out mean at the x of the mix each matches
 * (from D_base at 1), the oracle's held-out mean as a flat dashed line.
 */
export function sklSdSvg(results: SklSdResults): string {
  const at = (mix: string) =>
    mix === "random"
      ? 0
      : 1 + SD_MIXES.indexOf((isControl(mix) ? CONTROL_OF[mix] : mix) as (typeof SD_MIXES)[number]);
  const plotted = (r: { mix: string }) => r.mix !== "oracle" && !isControl(r.mix);
  const controlLine = (s: { mix: string }) => s.mix === "base" || isControl(s.mix);
  const seeds = [...new Set(results.rows.map((r) => r.seed))];
  const oracle = results.summary.find((s) => s.mix === "oracle")?.heldoutMean ?? 0;
  // The y axis up to the next tenth above the largest figure (slippery maps give small numbers).
  const top = Math.max(...results.rows.flatMap((r) => [r.train.pass1, r.heldout.pass1]), 0);
  return renderLineChartSvg({
    yRange: [0, Math.min(1, Math.ceil(top * 10 + 1e-9) / 10 || 0.1)],
    title: "SKL-SD: SFT of the linear policy, FrozenLake (real environment)",
    xLabel: "mix: 0 random (untrained), 1 D_base, 2 +D_distill, 3 +D_reflect",
    yLabel: "pass@1",
    series: [
      {
        name: "train maps (mean)",
        color: COLORS[0] as string,
        points: results.summary.filter(plotted).map((s) => [at(s.mix), s.trainMean] as const),
      },
      {
        name: "held-out maps (mean)",
        color: COLORS[1] as string,
        points: results.summary.filter(plotted).map((s) => [at(s.mix), s.heldoutMean] as const),
      },
      {
        name: "held-out, D_base size-matched (mean)",
        color: COLORS[5] as string,
        points: results.summary.filter(controlLine).map((s) => [at(s.mix), s.heldoutMean] as const),
      },
      {
        name: "oracle, held-out (mean)",
        color: "#7f7f7f",
        dashed: true,
        points: [
          [0, oracle],
          [3, oracle],
        ],
      },
      ...seeds.map((seed, i) => ({
        name: `held-out, seed ${seed}`,
        color: COLORS[(i + 2) % COLORS.length] as string,
        dashed: true,
        points: results.rows
          .filter((r: SklSdRow) => r.seed === seed && plotted(r))
          .map((r) => [at(r.mix), r.heldout.pass1] as const),
      })),
    ],
  });
}
