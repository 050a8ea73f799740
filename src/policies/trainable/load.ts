import { resolve } from "node:path";
import { UserError } from "../../core/index.ts";
import { readCheckpoint, TrainableKindSchema } from "./checkpoint.ts";
import { policyFromCheckpoint, type TrainablePolicy } from "./trainable-policy.ts";

/**
 * The trained policy a `--policy tabular:FILE` / `linear:FILE` spec names. The kind before the colon
 * must be the checkpoint's, and a checkpoint trained on one family is refused on another.
 */
export function trainedPolicyFromSpec(spec: string, family: string): TrainablePolicy {
  const colon = spec.indexOf(":");
  const kind = TrainableKindSchema.parse(spec.slice(0, colon));
  const file = resolve(spec.slice(colon + 1));
  const checkpoint = readCheckpoint(file);
  if (checkpoint.kind !== kind)
    throw new UserError(
      "policy.checkpoint_kind",
      `--policy ${spec}: the checkpoint ${file} holds a ${checkpoint.kind} policy, not ${kind}; use --policy ${checkpoint.kind}:${spec.slice(colon + 1)}`,
    );
  if (checkpoint.family !== undefined && checkpoint.family !== family)
    throw new UserError(
      "policy.checkpoint_family",
      `--policy ${spec}: the checkpoint ${file} was trained on ${checkpoint.family}, but the environment is ${family}; use a checkpoint trained on ${family} (or --env ${checkpoint.family})`,
    );
  return policyFromCheckpoint(checkpoint, spec.slice(0, colon));
}
