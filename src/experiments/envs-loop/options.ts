import { z } from "zod";
import type { SearchConfigInput } from "../../search/index.ts";

/** The options of `rehearsal experiment envs-loop` (validated at the CLI boundary). */
export const EnvsLoopOptionsSchema = z
  .object({
    /** terminal (default: fast, seeded shell tasks) or web (real Chromium). */
    env: z.enum(["terminal", "web"]).default("terminal"),
    /** default (the reported run) or small (a quick check: a few tasks, small trees, few rollouts). */
    scale: z.enum(["default", "small"]).default("default"),
    seed: z.string().min(1).default("0"),
    out: z.string().min(1).default("experiment-envs-loop"),
  })
  .strict();
export type EnvsLoopOptions = z.infer<typeof EnvsLoopOptionsSchema>;

/** Everything a run of the loop uses, derived from the options (recorded in results.json). */
export interface EnvsLoopPlan {
  env: "terminal" | "web";
  basePolicy: "template" | "heuristic";
  /** Task ids searched and evaluated ("all": the whole built-in suite). */
  tasks: "all" | string[];
  search: SearchConfigInput;
  /** Evaluation rollouts per task (pass@8 needs at least 8). */
  rollouts: number;
  ks: number[];
  fractions: number[];
  sft: { kind: "linear"; epochs: number; learningRate: number; l2: number };
  balance: { beta: number; wMax: number };
}

const SMALL_TASKS: Record<EnvsLoopPlan["env"], string[]> = {
  terminal: ["answer-file-count", "extract-column", "fix-config-key", "dedupe-lines", "merge-csv-by-key"],
  web: ["click-button", "click-checkboxes", "enter-text", "click-menu-item", "date-picker"],
};

/** The plan of a scale: `default` searches the whole suite with the paper's tree budget. */
export function planOf(options: EnvsLoopOptions): EnvsLoopPlan {
  const small = options.scale === "small";
  return {
    env: options.env,
    basePolicy: options.env === "terminal" ? "template" : "heuristic",
    tasks: small ? SMALL_TASKS[options.env] : "all",
    search: small ? { maxNodesPerTree: 32 } : {},
    rollouts: small ? 8 : 16,
    ks: [1, 8],
    fractions: [0.1, 0.3, 1],
    sft: { kind: "linear", epochs: small ? 60 : 200, learningRate: 1, l2: 0 },
    balance: { beta: 0.5, wMax: 2 },
  };
}
