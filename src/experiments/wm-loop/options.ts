import { z } from "zod";
import { UserError } from "../../core/index.ts";
import type { WmGateOptions } from "../../policies/trainable/wm-gate.ts";
import type { RecordingBatch } from "../worldmodel/record.ts";

/** The families the loop covers: FrozenLake slippery and the terminal suite by default, the short web tasks opt-in. */
export const WmLoopFamilySchema = z.enum(["frozenlake", "terminal", "web"]);
export type WmLoopFamily = z.infer<typeof WmLoopFamilySchema>;

/** `default`: the reported run (< 15 min on a shared 2-core machine); `small`: the test's run (seconds). */
export const WmLoopScaleSchema = z.enum(["default", "small"]);
export type WmLoopScale = z.infer<typeof WmLoopScaleSchema>;

export const WmLoopOptionsSchema = z
  .object({
    families: z.array(WmLoopFamilySchema).min(1).default(["frozenlake", "terminal"]),
    scale: WmLoopScaleSchema.default("default"),
    seed: z.string().min(1).default("0"),
    /** Training seconds per arm and family (the matched wall-clock); default per family and scale. */
    budgetSeconds: z.number().positive().max(3600).optional(),
    /** A fixed number of GRPO iterations per arm instead of a time budget (fully deterministic per seed). */
    iterations: z.number().int().positive().max(100_000).optional(),
    /** Real-environment evaluation episodes per task and checkpoint; default per family and scale. */
    evalEpisodes: z.number().int().positive().max(10_000).optional(),
    /**
     * Both arms train (and are evaluated as) the WM-consulting policy, which asks the family's
     * worldbook world model when its learned gate opens; false: the plain trainable policy.
     */
    wmGate: z.boolean().default(true),
  })
  .strict();
export type WmLoopOptions = z.output<typeof WmLoopOptionsSchema>;
export type WmLoopOptionsInput = z.input<typeof WmLoopOptionsSchema>;

/** One family of the loop: what to record, how to train and how to evaluate. */
export interface WmLoopSetting {
  name: string;
  family: WmLoopFamily;
  envOptions: Record<string, unknown>;
  tasks: string[];
  tier?: "short";
  kind: "tabular" | "linear";
  /** The WM-consulting policy's caps (per step, per episode); absent: the plain policy. */
  wm?: WmGateOptions;
  recording: RecordingBatch[];
  /** GRPO: group size, step limit, learning rate, length-reward weight. */
  grpo: { group: number; tMax: number; learningRate: number; beta: number };
  /** The matched wall-clock per arm, or fixed iterations. */
  budget: { seconds: number } | { iterations: number };
  evalEpisodes: number;
  /** Checkpoints of each arm evaluated in the real env for the curve (the initial policy is one more). */
  curvePoints: number;
}

/** A family's setting without the budget and evaluation size, with the defaults of those two. */
interface FamilyPlan {
  setting: Omit<WmLoopSetting, "budget" | "evalEpisodes" | "wm">;
  /** The caps of the WM-consulting policy on this family. */
  wm: WmGateOptions;
  seconds: number;
  evalEpisodes: number;
}

/** A short-tier family played by the linear policy (terminal, web): its tasks, recording and step limit. */
function shortLinear(
  small: boolean,
  f: Pick<WmLoopSetting, "name" | "family" | "tasks" | "recording"> & { tMax: number },
): FamilyPlan["setting"] {
  return {
    name: f.name,
    family: f.family,
    envOptions: {},
    tasks: f.tasks,
    tier: "short",
    kind: "linear",
    recording: f.recording,
    grpo: { group: small ? 4 : 8, tMax: f.tMax, learningRate: 0.5, beta: 0 },
    curvePoints: small ? 2 : 4,
  };
}

/** The WM-consulting policy's caps on the short terminal and web tasks (their candidate lists are long). */
const SHORT_TIER_WM: WmGateOptions = { stepCap: 3, episodeCap: 6 };

/** Per family, its plan at the small (`true`) or default scale. */
const PLANS: Record<WmLoopFamily, (small: boolean) => FamilyPlan> = {
  frozenlake: (small) => ({
    setting: {
      name: "frozenlake-slippery-4x4",
      family: "frozenlake",
      envOptions: { slippery: true },
      tasks: ["4x4"],
      kind: "tabular",
      recording: [{ policy: "random", episodes: small ? 40 : 600 }],
      grpo: { group: small ? 8 : 16, tMax: 100, learningRate: 1, beta: 0 },
      curvePoints: small ? 2 : 5,
    },
    wm: { stepCap: 4, episodeCap: 24 },
    seconds: small ? 2 : 90,
    evalEpisodes: small ? 20 : 200,
  }),
  terminal: (small) => ({
    setting: shortLinear(small, {
      name: "terminal-short",
      family: "terminal",
      tasks: small ? ["find-and-copy"] : ["find-and-copy", "rename-txt-to-md", "count-matching-lines"],
      recording: [
        { policy: "oracle", episodes: small ? 1 : 3 },
        { policy: "template", episodes: small ? 3 : 12 },
      ],
      tMax: small ? 6 : 10,
    }),
    wm: SHORT_TIER_WM,
    seconds: small ? 3 : 120,
    evalEpisodes: small ? 3 : 20,
  }),
  web: (small) => ({
    setting: shortLinear(small, {
      name: "web-short",
      family: "web",
      tasks: small ? ["click-button"] : ["click-button", "toggle-switch"],
      recording: [
        { policy: "oracle", randomRate: 0.35, episodes: small ? 2 : 6 },
        { policy: "heuristic", randomRate: 0.35, episodes: small ? 1 : 3 },
      ],
      tMax: 8,
    }),
    wm: SHORT_TIER_WM,
    seconds: small ? 5 : 120,
    evalEpisodes: small ? 2 : 10,
  }),
};

/** The settings of `options`: per family, the sizes of its scale, overridden by the options' figures. */
export function wmLoopSettings(options: WmLoopOptions): WmLoopSetting[] {
  const small = options.scale === "small";
  const settings = [...new Set(options.families)].map((family): WmLoopSetting => {
    const plan = PLANS[family](small);
    return {
      ...plan.setting,
      ...(options.wmGate ? { wm: plan.wm } : {}),
      budget:
        options.iterations !== undefined
          ? { iterations: options.iterations }
          : { seconds: options.budgetSeconds ?? plan.seconds },
      evalEpisodes: options.evalEpisodes ?? plan.evalEpisodes,
    };
  });
  if (settings.length === 0)
    throw new UserError(
      "experiment.no_families",
      "wm-loop experiment: no families given. Fix: --families frozenlake,terminal (web opt-in)",
    );
  return settings;
}
