import { UserError } from "../../core/errors.ts";

/** `--policy tabular|linear` of the train commands: the kind of policy to train. */
export function trainKind(value: string | undefined): "tabular" | "linear" {
  const kind = value ?? "tabular";
  if (kind === "tabular" || kind === "linear") return kind;
  throw new UserError("cli.invalid_option", `--policy: train makes a tabular or linear policy, not ${kind}`);
}

/** A zod result of the train options as a user error naming the flags. */
export function trainOptionsError(
  command: string,
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): UserError {
  const flagOf = (path: ReadonlyArray<PropertyKey>) =>
    `--${String(path.at(-1)).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  return new UserError(
    "train.options",
    `invalid train ${command} options: ${issues.map((i) => `${flagOf(i.path)}: ${i.message}`).join("; ")}`,
  );
}
