import { z } from "zod";
import { parseKnowledgeOptions } from "../../knowledge/errors.ts";

/**
 * Options of the SKL-SD data pipeline (`runSklSdPipeline`). The loss the datasets feed is
 * L = PG(D_base) + λ1·PG(D_distill) + λ2·SFT(D_reflect).
 */
export const SklSdOptionsSchema = z
  .object({
    /** Training maps (random `mapSize`×`mapSize` maps of the FrozenLake suite). */
    maps: z.number().int().min(1).max(5_000).default(50),
    mapSize: z.number().int().min(3).max(16).default(5),
    /** Steps per episode (the reference code: 20). */
    horizon: z.number().int().min(1).max(1_000).default(20),
    iterations: z.number().int().min(1).max(1_000).default(1),
    /** `symmetric`: Gymnasium's 1/3 each; `asymmetric`: the paper's P = (0, 2/3); `none`: not slippery. */
    slip: z.enum(["symmetric", "asymmetric", "none"]).default("symmetric"),
    writer: z.enum(["statistical", "llm"]).default("statistical"),
    /** LLM config (see `LlmConfigSchema`) for `writer: "llm"` when no writer is injected. */
    llm: z.record(z.string(), z.unknown()).optional(),
    /**
     * Fraction of the failed episodes' distinct states the bootstrapping updates, sampled uniformly with
     * the seed (1 = all states; the paper's option: 0.2).
     */
    sampleFraction: z.number().gt(0).max(1).default(1),
    /** λ1: weight of PG(D_distill). */
    lambda1: z.number().min(0).max(1_000).default(1),
    /** λ2: weight of SFT(D_reflect). */
    lambda2: z.number().min(0).max(1_000).default(1),
    /** Continuations per update (N) and horizons (H) of the MC and TD updates. */
    n: z.number().int().min(1).max(1_000).default(3),
    hMc: z.number().int().min(1).max(1_000).default(15),
    hTd: z.number().int().min(1).max(1_000).default(1),
    /** Softmax temperature of the knowledge policy. */
    temperature: z.number().min(0).max(10).default(0.1),
    optimisticPrior: z.number().min(-1).max(1).default(0.5),
    gamma: z.number().gt(0).max(1).default(0.95),
    deathPenalty: z.number().min(0).max(10).default(1),
    seed: z.union([z.string().min(1), z.number().int()]).default(0),
    /** Where d_base.jsonl, d_distill.jsonl, d_reflect.jsonl and manifest.json are written. */
    outDir: z.string().min(1),
  })
  .strict();
export type SklSdOptionsInput = z.input<typeof SklSdOptionsSchema>;
export type SklSdOptions = z.output<typeof SklSdOptionsSchema>;

/** Parses pipeline options; a `KnowledgeOptionsError` names each problem. */
export function parseSklSdOptions(input: unknown): SklSdOptions {
  return parseKnowledgeOptions(SklSdOptionsSchema, input ?? {}, "SKL-SD options");
}

/** The options a manifest records: without `outDir`, and without the LLM API key. */
export function manifestOptions(options: SklSdOptions): Record<string, unknown> {
  const { outDir: _outDir, llm, ...rest } = options;
  if (!llm) return rest;
  const { apiKey: _apiKey, ...safe } = llm;
  return { ...rest, llm: safe };
}
