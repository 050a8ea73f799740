import { UserError } from "../core/errors.ts";

/** The noise sets a command's `--noise` can name: held-out generators (evaluation) or training ones. */
export type NoiseSet = "train" | "heldout";

/**
 * `--noise SET` checked against the sets a command takes (`eval`: heldout; `rl rollouts`: train). A
 * set the command refuses for a reason (`refused`) names that reason; any other value lists the sets.
 */
export function noiseSetOption(
  value: string | undefined,
  accepted: ReadonlyArray<NoiseSet>,
  refused: Readonly<Record<string, string>> = {},
): NoiseSet | undefined {
  if (value === undefined) return undefined;
  if ((accepted as ReadonlyArray<string>).includes(value)) return value as NoiseSet;
  const why = refused[value];
  throw new UserError(
    "cli.invalid_option",
    why
      ? `--noise ${value}: ${why}`
      : `--noise takes ${accepted.map((s) => `"${s}"`).join(" or ")}, got "${value}"`,
  );
}

/** Flags that only mean something with `--noise SET` (`dependents`: flag → value): one given without it is a user error. */
export function requireNoise(
  noise: string | undefined,
  set: NoiseSet,
  dependents: Readonly<Record<string, unknown>>,
): void {
  if (noise === set || Object.values(dependents).every((v) => v === undefined)) return;
  const flags = Object.keys(dependents);
  throw new UserError(
    "cli.invalid_option",
    `${flags.join(" and ")} need${flags.length === 1 ? "s" : ""} --noise ${set}`,
  );
}
