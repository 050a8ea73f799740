import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { RlRolloutExtras } from "../../runner/execute-rl-rollouts.ts";
import { noiseSetOption, requireNoise } from "../noise-options.ts";
import { floatOption } from "../options.ts";
import type { ConfigFlags } from "../run-options.ts";

/** `rl rollouts`' noise and curation flags. */
export interface RolloutInputFlags extends ConfigFlags {
  noise?: string;
  noiseRate?: number;
  curation?: string;
}

export function addRolloutInputOptions(command: Command): Command {
  return command
    .option("--noise <set>", "perturb every group with one schedule drawn from its seed: train (web)")
    .option(
      "--noise-rate <s>",
      "with --noise: success rate s of the fire count (default: curated, else 0.5)",
      floatOption,
    )
    .option("--curation <file>", "play only the tasks a curation manifest keeps (rehearsal rl curate)");
}

/**
 * The validated noise and curation inputs of the flags. With `--curation` the manifest's sampled
 * tasks become `flags.tasks` (so `--tasks` with it is a user error); a manifest that does not
 * validate is `rl.curation_invalid`.
 */
export async function rolloutExtras(flags: RolloutInputFlags): Promise<RlRolloutExtras> {
  const noise = noiseSetOption(flags.noise, ["train"], {
    heldout:
      "held-out generators are for evaluation only (rehearsal eval --noise heldout); rl rollouts takes --noise train",
  });
  requireNoise(flags.noise, "train", { "--noise-rate": flags.noiseRate });
  const rl = await import("../../rl/index.ts");
  const extras: RlRolloutExtras = {};
  if (noise === "train") {
    const r = rl.RlNoiseSpecSchema.safeParse({ set: noise, successRate: flags.noiseRate });
    if (!r.success)
      throw new UserError(
        "cli.invalid_option",
        `--noise-rate takes a success rate in [0, 1], got ${flags.noiseRate}`,
      );
    extras.noise = r.data;
  }
  if (flags.curation !== undefined) {
    if (flags.tasks !== undefined)
      throw new UserError("cli.invalid_option", "--curation chooses the tasks; leave out --tasks");
    const manifest = rl.readCurationManifest(flags.curation);
    flags.tasks = rl.curatedTaskIds(manifest, flags.curation);
    extras.curation = { path: flags.curation, manifest };
  }
  return extras;
}

/** A manifest measured on another environment than the run's is a user error. */
export function checkCurationEnv(extras: RlRolloutExtras, env: string): void {
  const c = extras.curation;
  if (c && c.manifest.env !== env)
    throw new UserError(
      "rl.curation_env",
      `curation manifest ${c.path} was measured on --env ${c.manifest.env}, not ${env}; curate on the environment you roll out on`,
    );
}
