import { InvalidArgumentError } from "commander";

/** Commander parsers that reject bad numbers at the flag, naming it. */
export function intOption(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`expected a whole number, got '${value}'`);
  return n;
}

export function floatOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`expected a number, got '${value}'`);
  return n;
}

export function listOption(value: string): string[] | "all" {
  if (value === "all") return "all";
  const ids = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (ids.length === 0) throw new InvalidArgumentError("expected comma-separated ids or 'all'");
  return ids;
}

export function positiveIntOption(value: string): number {
  const n = intOption(value);
  if (n < 1) throw new InvalidArgumentError(`expected a whole number ≥ 1, got '${value}'`);
  return n;
}
