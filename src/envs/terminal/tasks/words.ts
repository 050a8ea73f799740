import type { Random } from "../../../core/random.ts";
import type { Check } from "./spec.ts";

/** Word pools that seeded tasks draw names and contents from. */
export const NOUNS = [
  "alpha",
  "bravo",
  "cedar",
  "delta",
  "ember",
  "fjord",
  "garnet",
  "harbor",
  "iris",
  "juniper",
  "kestrel",
  "lagoon",
  "maple",
  "nectar",
  "onyx",
  "pepper",
  "quartz",
  "raven",
  "sierra",
  "tundra",
  "umber",
  "violet",
  "willow",
  "xenon",
  "yarrow",
  "zephyr",
];
export const PEOPLE = [
  "ada",
  "bob",
  "carla",
  "dmitri",
  "erin",
  "femi",
  "gus",
  "hana",
  "ivan",
  "jade",
  "kofi",
  "lena",
];

/** `n` distinct items of `pool` in a seeded order. */
export function pickDistinct<T>(random: Random, pool: ReadonlyArray<T>, n: number): T[] {
  return random.shuffle(pool).slice(0, n);
}

/** A seeded token such as `K7QX2M` (upper-case letters and digits). */
export function token(random: Random, length = 6): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[random.int(alphabet.length)];
  return out;
}

/** A few seeded filler lines. */
export function filler(random: Random, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(pickDistinct(random, NOUNS, 4).join(" "));
  return `${out.join("\n")}\n`;
}

/** A check that `actual` equals `expected` after trimming trailing whitespace of both. */
export function sameText(name: string, actual: string | undefined, expected: string, gate = false): Check {
  const ok = actual !== undefined && actual.trimEnd() === expected.trimEnd();
  return gate ? { name, ok, gate } : { name, ok };
}

/** A gate: every file in `kept` still exists with its original content. */
export function keptIntact(
  read: (path: string) => string | undefined,
  kept: Record<string, string>,
  name = "kept-files-intact",
): Check {
  return { name, ok: Object.entries(kept).every(([p, c]) => read(p) === c), gate: true };
}
