import { UserError } from "../../core/errors.ts";
import type { Checkpoint, CurvePoint } from "../../policies/trainable/index.ts";
import type { GrpoOptions } from "../../train/index.ts";
import type { Output } from "../output.ts";
import { formatPercent } from "../output.ts";
import type { ConfigFlags } from "../run-options.ts";
import { trainKind, trainOptionsError } from "./train-options.ts";

export interface GrpoFlags extends ConfigFlags {
  out: string;
  init?: string;
  resume?: boolean;
  group: number;
  iterations?: number;
  tMax: number;
  updateSteps?: number;
  lr?: number;
  clip?: number;
  kl?: number;
  temperature?: number;
  alpha?: number;
  beta?: number;
  gamma?: number;
}

/** The shared flags without `--policy` (here the kind to train, not a policy for the run config). */
export function withoutKind(flags: GrpoFlags): ConfigFlags {
  const { policy: _kind, ...rest } = flags;
  return rest;
}

/** The GRPO options of the flags, or of the checkpoint being resumed (its stored options and seed). */
export async function grpoRunOptions(
  flags: GrpoFlags,
): Promise<{ options: GrpoOptions; resume?: Checkpoint; init?: Record<string, number> }> {
  const { GrpoOptionsSchema } = await import("../../train/index.ts");
  const { readCheckpoint } = await import("../../policies/trainable/index.ts");
  const resume = flags.resume ? readCheckpoint(flags.out) : undefined;
  if (resume && resume.training?.method !== "grpo")
    throw new UserError(
      "train.resume",
      `--resume: ${flags.out} is not a checkpoint of 'train grpo'; drop --resume`,
    );
  const stored = (resume?.training?.options ?? {}) as Record<string, unknown>;
  const given = {
    kind: flags.policy === undefined ? undefined : trainKind(flags.policy),
    iterations: flags.iterations,
    updateSteps: flags.updateSteps,
    learningRate: flags.lr,
    clip: flags.clip,
    kl: flags.kl,
    temperature: flags.temperature,
    rollouts: {
      group: flags.group,
      tMax: flags.tMax,
      rewards: Object.fromEntries(
        Object.entries({ alpha: flags.alpha, beta: flags.beta, gamma: flags.gamma }).filter(
          ([, v]) => v !== undefined,
        ),
      ),
    },
  };
  const merged = resume
    ? { ...stored, iterations: flags.iterations ?? stored.iterations }
    : Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  const r = GrpoOptionsSchema.safeParse(merged);
  if (!r.success) throw trainOptionsError("grpo", r.error.issues);
  const options = r.data;
  const init = flags.init && !resume ? readCheckpoint(flags.init).weights : undefined;
  return { options, ...(resume ? { resume } : {}), ...(init ? { init } : {}) };
}

/** The result of a GRPO run: JSON, the curve's first and last success, and how to use or continue it. */
export function printGrpoResult(
  o: Output,
  out: string,
  options: GrpoOptions,
  family: string,
  checkpoint: Checkpoint,
): void {
  const curve: CurvePoint[] = checkpoint.training?.curve ?? [];
  o.result({ out, kind: options.kind, family, iterations: checkpoint.training?.iterations, curve });
  o.line(
    `train grpo: ${checkpoint.training?.iterations}/${options.iterations} iterations of ${options.kind} on ${family} → ${out}`,
  );
  const first = curve[0];
  const last = curve.at(-1);
  if (first && last)
    o.line(
      `success ${formatPercent(first.successRate ?? 0)} (iteration ${first.iteration}) → ${formatPercent(last.successRate ?? 0)} (iteration ${last.iteration}); mean reward ${(first.meanReward ?? 0).toFixed(3)} → ${(last.meanReward ?? 0).toFixed(3)}`,
    );
  if ((checkpoint.training?.iterations ?? 0) < options.iterations)
    o.warn(`interrupted; continue with the same command and --resume`);
  o.line(`use it with --policy ${options.kind}:${out}`);
}
