import type { Environment } from "../core/index.ts";
import { NoisyEnvironment } from "./noisy-environment.ts";
import { noiseTag } from "./tags.ts";

/**
 * The noise layer's side of search's `TreeNoise` hook: `attach` makes an environment slot fire branch
 * schedules (a `NoisyEnvironment`, kept as it is when the slot already is one), `tag` labels a leaf
 * from what fired on its path. Spread into a `TreeNoise` next to `fraction` and `plan`.
 */
export const branchNoiseHooks = {
  attach(env: Environment): NoisyEnvironment {
    return env instanceof NoisyEnvironment ? env : new NoisyEnvironment(env);
  },
  tag: noiseTag,
};
