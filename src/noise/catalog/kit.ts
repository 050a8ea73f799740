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

/** What a widget adds to its layout, role and title: body, buttons, timers, a follow-up, ... */
export type WidgetRest = Omit<PageWidget, "layout" | "role" | "title">;
type Role = PageWidget["role"];

const laidOut = (layout: PageWidget["layout"], role: Role, title: string, rest: WidgetRest): PageWidget => ({
  layout,
  role,
  title,
  ...rest,
});

/**
 * A blocking modal's widget: layout `modal` over a backdrop, with `role` and `title` (also the
 * follow-up of a compositional sequence). A modal without a backdrop is a plain `widget()`.
 */
export function modalSpec(role: Role, title: string, rest: Omit<WidgetRest, "backdrop"> = {}): PageWidget {
  return { ...laidOut("modal", role, title, rest), backdrop: true };
}

/** A blocking modal (see `modalSpec`) as a perturbation effect. */
export const modal = (
  role: Role,
  title: string,
  rest: Omit<WidgetRest, "backdrop"> = {},
): PerturbationEffect => widget(modalSpec(role, title, rest));

/** A toast: a small notice in a corner of the page that does not block it. */
export const toast = (role: Role, title: string, rest: WidgetRest = {}): PerturbationEffect =>
  widget(laidOut("toast", role, title, rest));

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

/** The button that closes a widget of a sequence and shows the next one. */
export const NEXT: NonNullable<PageWidget["buttons"]> = [{ label: "Next", effect: "next" }];

/**
 * A compositional sequence as one effect: each widget's `next` button closes it and shows the
 * following one (its `followUp`).
 */
export function sequence(first: PageWidget, ...rest: PageWidget[]): PerturbationEffect {
  const chain = (w: PageWidget, i: number): PageWidget => {
    const next = rest[i];
    return next === undefined ? w : { ...w, followUp: chain(next, i + 1) };
  };
  return widget(chain(first, 0));
}
