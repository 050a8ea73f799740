import { createRuntime, UserError } from "../../core/index.ts";
import { RunConfigSchema } from "../../runner/config.ts";
import { createEnvironmentFromConfig } from "../../runner/environments.ts";
import { createPolicyFromConfig } from "../../runner/policies.ts";
import { createWorldModelEnvironment } from "../../worldmodel/environment/index.ts";
import { startSeeds, type W2rResult, worldToReal } from "../../worldmodel/eval/w2r.ts";
import type { Worldbook } from "../../worldmodel/index.ts";

export interface W2rRunOptions {
  /** The policy acting in the world model (the runner's policy names). */
  policy: "random" | "heuristic" | "oracle";
  /** Episodes per task, from the seeds of the worldbook's starts of that task. */
  seeds: number;
  maxSteps?: number;
}

/**
 * W2R of a worldbook against the family's built-in real environment (with `envOptions`): every task the
 * worldbook holds a start of, from the seeds its starts were recorded with, so both sides begin in the
 * same state.
 */
export async function worldToRealOfBook(
  book: Worldbook,
  family: string,
  envOptions: Record<string, unknown>,
  options: W2rRunOptions,
): Promise<W2rResult> {
  const env = RunConfigSchema.shape.env.safeParse(family);
  if (!env.success)
    throw new UserError(
      "w2r.no_real_env",
      `world-to-real: family ${family} has no built-in real environment to replay in. Fix: evaluate a frozenlake, chess, web or terminal worldbook`,
    );
  const runtime = createRuntime({ seed: `w2r|${family}` });
  const simulated = await createWorldModelEnvironment({ book });
  const policy = await createPolicyFromConfig({ policy: options.policy, env: env.data }, runtime);
  try {
    return await worldToReal({
      simulated,
      real: () => createEnvironmentFromConfig({ env: env.data, envOptions, suite: "builtin" }, runtime),
      policy,
      tasks: book.tasks.filter((t) => startSeeds(book, t.id, 1).length > 0),
      seeds: (task) => startSeeds(book, task.id, options.seeds),
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    });
  } finally {
    await policy.close?.();
    await simulated.close();
  }
}
