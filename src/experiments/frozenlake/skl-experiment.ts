import { z } from "zod";
import type { Runtime } from "../../core/runtime.ts";
import { createFrozenLakeEnvironment } from "../../envs/frozenlake/environment.ts";
import { createFrozenLakeSuite } from "../../envs/frozenlake/suite.ts";
import { parseKnowledgeOptions } from "../../knowledge/errors.ts";
import type { KnowledgeTable } from "../../knowledge/knowledge-table.ts";
import {
  type IterationMetrics,
  runSklLoop,
  SKL_METHODS,
  type SklMethod,
  SklMethodSchema,
} from "../../knowledge/loops.ts";
import type { EpisodeRecorder } from "../../knowledge/play-episode.ts";
import { round6 } from "../../knowledge/statistics.ts";
import { renderLineChartSvg } from "../../knowledge/svg-chart.ts";
import { createSklWriter } from "../writers.ts";
import { describeFrozenLakeKey, FROZENLAKE_TERMS, frozenLakeLocalView } from "./local-key.ts";

/** Held-out maps are the last ones of the random group; with ≤ 50 + 50 maps this is the paper's 100 / 50. */
const DEFAULT_SPLIT = 50;

/**
 * Options of `rehearsal skl frozenlake` (and of `runFrozenLakeSklExperiment`). Defaults follow the paper
 * (50 train and 50 held-out 5x5 maps, 20 steps, N 3, H 15 for MC and 1 for TD).
 */
export const SklFrozenLakeOptionsSchema = z
  .object({
    /** `symmetric`: Gymnasium's 1/3 each; `asymmetric`: the paper's P = (0, 2/3). */
    slip: z.enum(["symmetric", "asymmetric"]).default("symmetric"),
    trainMaps: z.number().int().min(1).max(5_000).default(50),
    testMaps: z.number().int().min(1).max(5_000).default(50),
    iterations: z.number().int().min(1).max(1_000).default(10),
    /** `statistical` (no model) or `llm` (an OpenAI-compatible endpoint given in `llm`). */
    writer: z.enum(["statistical", "llm"]).default("statistical"),
    /** LLM client config for `writer: "llm"` (see LlmConfigSchema: baseUrl, model, apiKey, ...). */
    llm: z.record(z.string(), z.unknown()).optional(),
    methods: z
      .array(SklMethodSchema)
      .min(1)
      .default([...SKL_METHODS]),
    mapSize: z.number().int().min(3).max(16).default(5),
    horizon: z.number().int().min(1).max(1_000).default(20),
    /** Training episodes per map per iteration, and held-out episodes per map per evaluation. */
    episodesPerMap: z.number().int().min(1).max(1_000).default(1),
    evalEpisodesPerMap: z.number().int().min(1).max(1_000).default(1),
    /** Continuations per update (N) and horizons (H) of the MC and TD updates. */
    n: z.number().int().min(1).max(1_000).default(3),
    hMc: z.number().int().min(1).max(1_000).default(15),
    hTd: z.number().int().min(1).max(1_000).default(1),
    scope: z.enum(["all", "last-epoch"]).default("all"),
    /** Episodes the fully bootstrapping loop sweeps: failed ones (the paper) or all. */
    bootstrapOn: z.enum(["failed", "all"]).default("failed"),
    /** Softmax temperature of the knowledge policy (training and evaluation alike). */
    temperature: z.number().min(0).max(10).default(0.1),
    /** Value assumed for actions without knowledge. */
    optimisticPrior: z.number().min(0).max(1).default(0.5),
    gamma: z.number().gt(0).max(1).default(0.95),
    /** V(s') the TD update assumes for a successor without knowledge (optimism explores new states). */
    unknownValue: z.number().min(-10).max(10).default(0),
    /** Penalty of falling into a hole in the statistical writer's values (0 = reward only). */
    deathPenalty: z.number().min(0).max(10).default(1),
    /** Also learn under a map-independent local key (the four neighbouring tiles + goal direction). */
    generalise: z.boolean().default(true),
    seed: z.union([z.string().min(1), z.number().int()]).default(0),
  })
  .strict();
export type SklFrozenLakeOptionsInput = z.input<typeof SklFrozenLakeOptionsSchema>;
export type SklFrozenLakeOptions = z.output<typeof SklFrozenLakeOptionsSchema>;

export interface SklMethodReport {
  method: string;
  iterations: IterationMetrics[];
  final: {
    trainSuccessRate: number;
    testSuccessRate: number;
    trainGoodMoveRatio: number;
    testGoodMoveRatio: number;
    successDrop: number;
  };
  knowledge: {
    keys: number;
    versions: number;
    examples: Array<{ key: string; version: number; text: string }>;
  };
}

export interface SklFrozenLakeReport {
  kind: "skl-frozenlake";
  options: SklFrozenLakeOptions;
  setup: {
    dynamics: { intended: number; left: number; right: number };
    trainTaskIds: string[];
    testTaskIds: string[];
    writer: string;
  };
  methods: SklMethodReport[];
  /** Present when a stop request (SIGINT/SIGTERM) ended the experiment early: `methods` holds what completed. */
  interrupted?: true;
}

export interface SklFrozenLakeResult {
  report: SklFrozenLakeReport;
  /** Each method's final knowledge table (save it with a KnowledgePersistence). */
  tables: Partial<Record<SklMethod, KnowledgeTable>>;
  /** Success rate per iteration per method, train (solid) and test (dashed). */
  svg: string;
}

const COLORS: Record<string, string> = {
  "no-reflection": "#7f7f7f",
  "trajectory-reflection": "#d62728",
  "stateful-root": "#1f77b4",
  "stateful-bootstrap": "#2ca02c",
};

/** Parses experiment options; throws a `KnowledgeOptionsError` naming each problem. */
export function parseSklFrozenLakeOptions(input: unknown): SklFrozenLakeOptions {
  return parseKnowledgeOptions(SklFrozenLakeOptionsSchema, input ?? {}, "SKL FrozenLake options");
}

/** What the caller provides: the run its episodes are recorded in, and the LLM client's runtime. */
export interface SklExperimentDeps {
  /** Default: a fresh in-memory store. */
  recorder?: EpisodeRecorder;
  /** Runtime of the LLM writer's client (default: a deterministic one from the seed). */
  runtime?: Runtime;
}

/** The success-rate chart of a report. */
export function renderSklChart(report: SklFrozenLakeReport): string {
  return renderLineChartSvg({
    title: `SKL on FrozenLake (${report.options.slip} slip): success rate`,
    xLabel: "iteration",
    yLabel: "success rate",
    series: report.methods.flatMap((m) => [
      {
        name: `${m.method} (train)`,
        color: COLORS[m.method] ?? "#000000",
        points: m.iterations.map((it) => [it.iteration, it.train.successRate] as const),
      },
      {
        name: `${m.method} (test)`,
        color: COLORS[m.method] ?? "#000000",
        dashed: true,
        points: m.iterations.map((it) => [it.iteration, it.test.successRate] as const),
      },
    ]),
  });
}

/**
 * Runs the SKL loops (seed method §2) on random FrozenLake maps and returns a JSON-serialisable report and
 * an SVG chart. Deterministic: the same options give the same report, byte for byte. When the recorder's
 * signal aborts, the methods' completed iterations are reported (`interrupted: true`) and no method starts.
 */
export async function runFrozenLakeSklExperiment(
  input: SklFrozenLakeOptionsInput = {},
  deps: SklExperimentDeps = {},
): Promise<SklFrozenLakeResult> {
  const options = parseSklFrozenLakeOptions(input);
  const heldout = Math.max(options.testMaps, DEFAULT_SPLIT);
  const count = Math.max(options.trainMaps, DEFAULT_SPLIT) + heldout;
  const suite = createFrozenLakeSuite({
    name: "skl-frozenlake",
    standard: [],
    randomMaps: { size: options.mapSize, count, heldoutCount: heldout },
  });
  const env = createFrozenLakeEnvironment(
    {
      horizon: options.horizon,
      ...(options.slip === "asymmetric" ? { perpendicular: { left: 0, right: 2 / 3 } } : {}),
    },
    { suite },
  );
  const tasks = suite.list();
  const trainTasks = tasks.filter((t) => t.split === "train").slice(0, options.trainMaps);
  const testTasks = tasks.filter((t) => t.split === "heldout").slice(0, options.testMaps);
  const writer = createSklWriter(
    "SKL FrozenLake options",
    options,
    {
      gamma: options.gamma,
      deathPenalty: options.deathPenalty,
      unknownValue: options.unknownValue,
      describeState: describeFrozenLakeKey,
      terms: FROZENLAKE_TERMS,
    },
    deps.runtime,
  );
  const methods: SklMethodReport[] = [];
  const tables: Partial<Record<SklMethod, KnowledgeTable>> = {};
  let interrupted = false;
  try {
    for (const method of options.methods) {
      if (interrupted || deps.recorder?.signal?.aborted) {
        interrupted = true;
        break;
      }
      const result = await runSklLoop({
        method,
        env,
        trainTasks,
        testTasks,
        iterations: options.iterations,
        episodesPerMap: options.episodesPerMap,
        evalEpisodesPerMap: options.evalEpisodesPerMap,
        maxSteps: options.horizon,
        writer,
        budget: { n: options.n, hMc: options.hMc, hTd: options.hTd, scope: options.scope },
        temperature: options.temperature,
        optimisticPrior: options.optimisticPrior,
        generalKeys: options.generalise ? [frozenLakeLocalView(suite)] : [],
        bootstrapOn: options.bootstrapOn,
        seed: String(options.seed),
        ...(deps.recorder ? { recorder: deps.recorder } : {}),
      });
      interrupted = result.interrupted;
      const last = result.iterations.at(-1);
      if (!last) break;
      tables[method] = result.table;
      const keys = result.table.keys();
      const versions = keys.reduce((n, k) => n + result.table.history(k).length, 0);
      const root = trainTasks[0]
        ? keys.filter((k) => k.includes(`${trainTasks[0]?.id}#`) || k.includes(`${trainTasks[0]?.id}:`))
        : [];
      methods.push({
        method,
        iterations: result.iterations,
        final: {
          trainSuccessRate: last.train.successRate,
          testSuccessRate: last.test.successRate,
          trainGoodMoveRatio: last.train.goodMoveRatio,
          testGoodMoveRatio: last.test.goodMoveRatio,
          successDrop: round6(last.train.successRate - last.test.successRate),
        },
        knowledge: {
          keys: keys.length,
          versions,
          examples: root.slice(0, 3).map((k) => {
            const e = result.table.read(k);
            return { key: k, version: e?.version ?? 0, text: e?.text ?? "" };
          }),
        },
      });
    }
  } finally {
    await env.close();
  }
  const report: SklFrozenLakeReport = {
    kind: "skl-frozenlake",
    // The API key never goes into a report.
    options: options.llm ? { ...options, llm: { ...options.llm, apiKey: undefined } } : options,
    setup: {
      dynamics: { ...env.dynamics },
      trainTaskIds: trainTasks.map((t) => t.id),
      testTaskIds: testTasks.map((t) => t.id),
      writer: writer.name,
    },
    methods,
    ...(interrupted ? { interrupted: true as const } : {}),
  };
  return { report, svg: renderSklChart(report), tables };
}
