import { z } from "zod";
import { ExperimentStatusSchema } from "../interrupt.ts";
import { WmLoopOptionsSchema } from "./options.ts";

const EvaluationSchema = z
  .object({
    pass1: z.number().min(0).max(1),
    episodes: z.number().int().nonnegative(),
    successes: z.number().int().nonnegative(),
    perTask: z.record(
      z.string(),
      z.object({ episodes: z.number().int(), successes: z.number().int(), pass1: z.number() }).strict(),
    ),
    meanSteps: z.number().nonnegative(),
    wmCallsPerTrajectory: z.number().nonnegative(),
  })
  .strict();

/** One point of an arm's curve: real-environment pass@1 after `seconds` of training. */
const CurvePointSchema = z
  .object({
    iteration: z.number().int().nonnegative(),
    seconds: z.number().nonnegative(),
    /** The success rate of that iteration's own training rollouts (in the arm's environment). */
    trainSuccess: z.number().min(0).max(1),
    /** `<call_wm>` calls per trajectory of that iteration's training rollouts. */
    trainWmCalls: z.number().nonnegative(),
    real: EvaluationSchema,
  })
  .strict();

const ArmSchema = z
  .object({
    arm: z.enum(["world-model", "real"]),
    iterations: z.number().int().nonnegative(),
    seconds: z.number().nonnegative(),
    /** 1-minute load average at the arm's start and end. */
    load: z.tuple([z.number(), z.number()]),
    /** Training-rollout success per iteration, in the arm's own environment. */
    trainSuccess: z.array(z.number().min(0).max(1)),
    /** `<call_wm>` calls per trajectory of each iteration's training rollouts (counted from their steps). */
    trainWmCalls: z.array(z.number().nonnegative()),
    curve: z.array(CurvePointSchema),
    final: EvaluationSchema,
  })
  .strict();

export const WmLoopFamilyResultSchema = z
  .object({
    name: z.string(),
    family: z.string(),
    kind: z.enum(["tabular", "linear"]),
    /** The WM-consulting policy's caps, and the world model it asks; absent: the plain policy. */
    wm: z
      .object({ stepCap: z.number().int(), episodeCap: z.number().int(), worldModel: z.literal("worldbook") })
      .strict()
      .optional(),
    envOptions: z.record(z.string(), z.unknown()),
    tasks: z.array(z.string()),
    traces: z.object({ episodes: z.number().int(), transitions: z.number().int() }).strict(),
    worldbook: z.object({ dir: z.string(), rules: z.number().int(), seconds: z.number() }).strict(),
    budget: z.union([
      z.object({ seconds: z.number() }).strict(),
      z.object({ iterations: z.number().int() }).strict(),
    ]),
    initial: EvaluationSchema,
    arms: z.tuple([ArmSchema, ArmSchema]),
    seconds: z.number().nonnegative(),
  })
  .strict();
export type WmLoopFamilyResult = z.infer<typeof WmLoopFamilyResultSchema>;
export type WmLoopArmResult = z.infer<typeof ArmSchema>;

export const WmLoopResultsSchema = z
  .object({
    experiment: z.literal("wm-loop"),
    /** `running` after each family while more follow, `interrupted` after a stop request (the families done). */
    status: ExperimentStatusSchema.default("complete"),
    config: WmLoopOptionsSchema,
    families: z.array(WmLoopFamilyResultSchema),
    /** Whether any evaluated policy wrote a `<call_wm>` block (the plain trainable policies do not). */
    wmCalls: z.string(),
    seconds: z.number().nonnegative(),
  })
  .strict();
export type WmLoopResults = z.infer<typeof WmLoopResultsSchema>;
