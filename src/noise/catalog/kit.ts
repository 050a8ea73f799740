import type { PageWidget, PerturbationEffect, Random } from "../../core/index.ts";
import type { NoiseGenerator, NoiseTier, RecoveryBehaviour } from "../generator.ts";

/** What the tier files of the catalog build their generators with: seeded picks, texts, `g`. */

export const pick = <T>(random: Random, items: ReadonlyArray<T>): T => items[random.int(items.length)] as T;

export const PEOPLE = ["Alex", "Sam", "Priya", "Jonas", "Mei", "Tomás", "Ines", "Kofi"];
export const NOTES = [
  "Agenda: budget review, hiring plan, launch date. Ask finance about Q3 numbers.",
  "Groceries: oat milk, lemons, rice, coffee beans, olive oil, basil.",
  "TODO: renew passport, book dentist, send slides to the team before Friday.",
  "Ideas for the offsite: hiking, cooking class, board games night, lake trip.",
];
export const COMMANDS = [
  "$ npm run build\n> tsc -p .\n$ git status\nOn branch main\n$ ls -la",
  "$ cd ~/projects/site\n$ make test\nok 12 tests\n$ docker ps\nCONTAINER ID   IMAGE",
  "$ tail -f /var/log/syslog\nNov 29 10:01 cron[412]: job started\n$ top -b -n1 | head",
];

export type Spec = Omit<
  NoiseGenerator,
  "build" | "recoveredBy" | "repeatable" | "needsTarget" | "heldOut"
> & {
  recoveredBy?: NoiseGenerator["recoveredBy"];
  repeatable?: boolean;
  needsTarget?: boolean;
  heldOut?: boolean;
  build(random: Random): PerturbationEffect;
};

function gen(spec: Spec): NoiseGenerator {
  return {
    repeatable: false,
    needsTarget: false,
    heldOut: false,
    recoveredBy: "status",
    ...spec,
  };
}

export const widget = (w: PageWidget): PerturbationEffect => ({ kind: "widget", widget: w });

export function g(
  tier: NoiseTier,
  name: string,
  cost: 0 | 1 | 2 | 3,
  category: string,
  recovery: RecoveryBehaviour,
  description: string,
  build: (random: Random) => PerturbationEffect,
  extra: Partial<Spec> = {},
): NoiseGenerator {
  return gen({ tier, name, cost, category, recovery, description, build, ...extra });
}
