import type { NoisyEvalOutcome } from "../../runner/index.ts";
import { formatPercent, type Output } from "../output.ts";

/** `rehearsal eval --noise heldout`: per entrant clean vs noisy tables, then the cross-evaluation. */
export function printNoisyReport(
  o: Output,
  { report, schedule }: NoisyEvalOutcome,
  ks: ReadonlyArray<number>,
  rollouts: number,
): void {
  o.result({ ...report, schedule: { path: schedule.path, computed: schedule.computed } });
  const pct = (r: Record<string, number>) => ks.map((k) => formatPercent(r[k] ?? 0));
  const head = (first: string) => [
    first,
    "tasks",
    ...ks.map((k) => `clean pass@${k}`),
    ...ks.map((k) => `noisy pass@${k}`),
  ];
  o.line(
    `noisy evaluation — ${rollouts} rollouts per task, one held-out perturbation per task from ${schedule.path}` +
      (schedule.computed ? " (computed now; pass --schedule to reuse it)" : ""),
  );
  for (const e of report.entrants) {
    o.line();
    o.line(
      `${e.label}: noise fired in ${e.noise.fired}/${e.noise.episodes} noisy episodes, recovered in ${e.noise.recovered}`,
    );
    o.table(
      head("group"),
      e.clean.pass.map((row) => {
        const noisy = e.noisy.pass.find((r) => r.group === row.group);
        return [row.group, row.tasks, ...pct(row.passAt), ...pct(noisy?.passAt ?? {})];
      }),
    );
    o.table(
      head("noise tier"),
      e.perNoiseTier.map((r) => [r.generator, r.tasks, ...pct(r.clean), ...pct(r.noisy)]),
    );
    o.table(
      head("generator"),
      e.perGenerator.map((r) => [`${r.generator} (${r.tier})`, r.tasks, ...pct(r.clean), ...pct(r.noisy)]),
    );
  }
  o.line();
  o.line("cross-evaluation (all tasks):");
  o.table(
    ["policy", ...ks.map((k) => `clean pass@${k}`), ...ks.map((k) => `noisy pass@${k}`)],
    report.cross.map((c) => [c.label, ...pct(c.clean), ...pct(c.noisy)]),
  );
}
