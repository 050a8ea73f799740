import { z } from "zod";

export const VerifierResultSchema = z.object({
  /** Terminal reward (environments define its range; web and grid tasks use [0, 1], chess [-1, 1]). */
  reward: z.number().finite(),
  /** Full success (the raw reward reached the task's threshold); partial rewards are data, not success. */
  success: z.boolean(),
  reason: z.string(),
  /** Named sub-scores (attribute/option/price scores, rubric parts). */
  metrics: z.record(z.string(), z.number()).default({}),
});
export type VerifierResult = z.infer<typeof VerifierResultSchema>;

/** Scores a finished (or current) episode state. */
export interface Verifier<Input = unknown> {
  readonly name: string;
  verify(input: Input): Promise<VerifierResult>;
}

export interface RubricPart<Input> {
  verifier: Verifier<Input>;
  /** Weight in the sum; 0 = a metric that is recorded but does not count. */
  weight: number;
  /** A gate: when it fails, the whole rubric scores 0 and fails. */
  gate?: boolean;
}

/**
 * A composite rubric: gates first (any failing gate gives reward 0), then the weighted sum of the
 * parts, normalised by the sum of positive weights. Every part's reward is kept in `metrics`.
 */
export function createRubric<Input>(
  name: string,
  parts: ReadonlyArray<RubricPart<Input>>,
  options: { successThreshold?: number } = {},
): Verifier<Input> {
  if (parts.length === 0) throw new RangeError(`rubric ${name} needs at least one part`);
  const threshold = options.successThreshold ?? 1;
  return {
    name,
    async verify(input) {
      const metrics: Record<string, number> = {};
      const reasons: string[] = [];
      let gateFailed = false;
      let sum = 0;
      let weights = 0;
      for (const part of parts) {
        const r = await part.verifier.verify(input);
        metrics[part.verifier.name] = r.reward;
        for (const [k, v] of Object.entries(r.metrics)) metrics[`${part.verifier.name}.${k}`] = v;
        if (part.gate && !r.success) {
          gateFailed = true;
          reasons.push(`gate ${part.verifier.name} failed: ${r.reason}`);
        }
        if (part.weight > 0) {
          sum += part.weight * r.reward;
          weights += part.weight;
        }
      }
      const reward = gateFailed ? 0 : weights > 0 ? sum / weights : 0;
      return {
        reward,
        success: !gateFailed && reward >= threshold,
        reason: gateFailed ? reasons.join("; ") : `weighted score ${reward.toFixed(3)}`,
        metrics,
      };
    },
  };
}
