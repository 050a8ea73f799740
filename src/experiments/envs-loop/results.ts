import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import { ExperimentStatusSchema } from "../interrupt.ts";
import { EnvsLoopOptionsSchema } from "./options.ts";

const PassGroupSchema = z
  .object({
    split: z.string(),
    tier: z.string(),
    tasks: z.number().int().positive(),
    episodes: z.number().int().nonnegative(),
    successes: z.number().int().nonnegative(),
    passAt: z.record(z.string(), z.number().min(0).max(1)),
  })
  .strict();

const count = z.number().int().nonnegative();
/** One task's per-task row: its id, split and tier, then the row's own counts. */
const taskRow = <T extends z.ZodRawShape>(fields: T) =>
  z.object({ taskId: z.string(), split: z.string(), tier: z.string(), ...fields }).strict();

const TaskRolloutsSchema = taskRow({
  n: count,
  c: count,
  infraFailed: count,
  meanSteps: z.number().nonnegative(),
});

const PolicyResultSchema = z
  .object({
    name: z.string(),
    policy: z.string(),
    weights: z.enum(["balanced", "uniform"]).optional(),
    fraction: z.number().gt(0).max(1).optional(),
    examples: z.number().int().nonnegative().optional(),
    finalLoss: z.number().optional(),
    targetsOutsideCandidates: z.number().int().nonnegative().optional(),
    eval: z.array(PassGroupSchema),
    perTask: z.array(TaskRolloutsSchema),
  })
  .strict();
export type PolicyResult = z.infer<typeof PolicyResultSchema>;

const RoundTaskSchema = taskRow({ leaves: count, successes: count, uniqueSteps: count, envSteps: count });

/** results.json of `experiment envs-loop`: the options, the derived plan and every figure. */
export const EnvsLoopResultsSchema = z
  .object({
    format: z.literal("rehearsal-experiment-envs-loop"),
    version: z.literal(1),
    /** `interrupted` after a stop request: the rounds, data and policies completed before it. */
    status: ExperimentStatusSchema.default("complete"),
    options: EnvsLoopOptionsSchema,
    plan: z.record(z.string(), z.unknown()),
    tasks: z.array(z.object({ id: z.string(), split: z.string(), tier: z.string() }).strict()),
    rounds: z.array(
      z
        .object({
          round: z.number().int(),
          policy: z.string(),
          runId: z.string(),
          tasks: z.array(RoundTaskSchema),
        })
        .strict(),
    ),
    data: z.array(
      z
        .object({
          fraction: z.number(),
          file: z.string(),
          records: z.number().int().nonnegative(),
          keptLeaves: z.number().int().nonnegative(),
        })
        .strict(),
    ),
    policies: z.array(PolicyResultSchema),
    best: z.string(),
    expertIteration: z
      .object({
        longTasks: z.number().int().nonnegative(),
        round1LongSolved: z.number().int().nonnegative(),
        round2LongSolved: z.number().int().nonnegative(),
        round1LongSuccesses: z.number().int().nonnegative(),
        round2LongSuccesses: z.number().int().nonnegative(),
        newlySolved: z.array(z.string()),
      })
      .strict(),
    /** Wall time per phase (not deterministic). */
    seconds: z.record(z.string(), z.number().nonnegative()),
  })
  .strict();
export type EnvsLoopResults = z.infer<typeof EnvsLoopResultsSchema>;

const pct = (x: number | undefined) => (x === undefined ? "-" : `${(100 * x).toFixed(1)}%`);

/** The table: one row per policy, pass@1 / pass@8 per split × tier (columns in the groups' order). */
export function envsLoopTable(r: EnvsLoopResults): { head: string[]; rows: string[][] } {
  const groups = (r.policies[0]?.eval ?? []).map((g) => `${g.split}/${g.tier}`);
  const head = ["policy", "examples", ...groups.map((g) => `${g} p@1 | p@8`)];
  const rows = r.policies.map((p) => [
    p.name,
    p.examples === undefined ? "-" : String(p.examples),
    ...groups.map((key) => {
      const g = p.eval.find((x) => `${x.split}/${x.tier}` === key);
      return `${pct(g?.passAt["1"])} | ${pct(g?.passAt["8"])}`;
    }),
  ]);
  return { head, rows };
}

/** The SVG: pass@1 by data fraction, balanced (solid) and uniform (dashed), train and held-out; base flat. */
export function envsLoopSvg(r: EnvsLoopResults): string {
  const at = (name: string | undefined, split: string) =>
    r.policies.find((p) => p.name === name)?.eval.find((g) => g.split === split && g.tier === "all")?.passAt[
      "1"
    ] ?? 0;
  const fractions = r.data.map((d) => d.fraction * 100);
  const line = (weights: string, split: string) =>
    fractions.map(
      (f) =>
        [
          f,
          at(
            r.policies.find(
              (p) =>
                p.weights === weights &&
                p.fraction !== undefined &&
                Math.round(p.fraction * 100) === Math.round(f),
            )?.name,
            split,
          ),
        ] as const,
    );
  const colors: Record<string, string> = { train: "#1f77b4", heldout: "#d62728" };
  return renderLineChartSvg({
    title: `envs-loop (${r.options.env}): pass@1 by data fraction`,
    xLabel: "share of successful search leaves (%)",
    yLabel: "pass@1",
    yRange: [0, 1],
    series: ["train", "heldout"].flatMap((split) => [
      { name: `balanced ${split}`, points: line("balanced", split), color: colors[split] as string },
      {
        name: `uniform ${split}`,
        points: line("uniform", split),
        color: colors[split] as string,
        dashed: true,
      },
      {
        name: `base ${split}`,
        points: fractions.map((f) => [f, at("base", split)] as const),
        color: "#7f7f7f",
        ...(split === "heldout" ? { dashed: true } : {}),
      },
    ]),
  });
}

/** Writes `results.json` (validated) and `pass-by-fraction.svg` into `out`; returns their paths. */
export function writeEnvsLoopOutputs(out: string, r: EnvsLoopResults): { json: string; svg: string } {
  const json = join(out, "results.json");
  const svg = join(out, "pass-by-fraction.svg");
  mkdirSync(out, { recursive: true });
  writeFileSync(json, `${JSON.stringify(EnvsLoopResultsSchema.parse(r), null, 1)}\n`);
  writeFileSync(svg, envsLoopSvg(r));
  return { json, svg };
}
