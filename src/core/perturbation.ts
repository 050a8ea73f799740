import { z } from "zod";
import type { Observation } from "./observation.ts";

/**
 * Perturbations: what an environment must be able to do so that the noise layer (src/noise) can
 * interrupt an agent — pop-ups, native dialogs, another tab, a scroll jump — without sabotage. The
 * environment owns the mechanics (it alone knows its pages); the noise layer decides what fires
 * when. Every effect lives in elements, dialogs or tabs the environment creates for it: it never
 * delivers input to task elements and never changes what the verifier reads.
 */

/** A button of a page widget and what pressing it does to the widget. */
export const WidgetButtonSchema = z
  .object({
    label: z.string().min(1),
    /** close: the widget goes away; next: the widget goes away and its `followUp` widget appears; none: stays. */
    effect: z.enum(["close", "next", "none"]).default("close"),
  })
  .strict();

const WidgetBaseSchema = z
  .object({
    /** Where the widget sits. `occluder` covers part of the target's box; `spacer` sits above the page in the flow. */
    layout: z.enum([
      "toast",
      "stack",
      "banner-top",
      "banner-bottom",
      "modal",
      "sheet",
      "panel",
      "corner",
      "occluder",
      "spacer",
    ]),
    /** ARIA role of the widget container. */
    role: z
      .enum(["dialog", "alertdialog", "alert", "status", "region", "complementary", "banner", "search"])
      .default("dialog"),
    title: z.string().default(""),
    body: z.array(z.string()).default([]),
    buttons: z.array(WidgetButtonSchema).default([]),
    /** Escape closes it (the key is consumed by the widget, as a focused modal would). */
    closeOnEscape: z.boolean().default(false),
    /** A full-viewport backdrop under the widget that takes every click meant for the page. */
    backdrop: z.boolean().default(false),
    /** Closes by itself after this many agent steps (waiting is the right move). */
    autoCloseAfter: z.number().int().positive().optional(),
    /** Someone types into the widget's own text area: `charsPerStep` more characters after each step. */
    typing: z
      .object({ text: z.string().min(1), charsPerStep: z.number().int().positive() })
      .strict()
      .optional(),
    /** The widget's own text field takes the keyboard focus when it appears. */
    stealFocus: z.boolean().default(false),
    /** The widget moves by this many pixels after each step (a window being dragged). */
    drift: z.object({ dx: z.number(), dy: z.number() }).strict().optional(),
    /** The widget has a drag handle; dragging it anywhere moves it out of the way (recovery by moving). */
    movable: z.boolean().default(false),
    /** Height in px of a `spacer` (how far it pushes the page down). */
    height: z.number().int().positive().optional(),
    /** Share of the target's box an `occluder` covers (from its left edge, always the centre). */
    cover: z.number().min(0.5).max(1).optional(),
  })
  .strict();

export type PageWidget = z.input<typeof WidgetBaseSchema> & { followUp?: PageWidget | undefined };
export type PageWidgetParsed = z.output<typeof WidgetBaseSchema> & {
  followUp?: PageWidgetParsed | undefined;
};

export const PageWidgetSchema: z.ZodType<PageWidgetParsed, PageWidget> = WidgetBaseSchema.extend({
  /** Shown when this widget is closed through a `next` button (compositional sequences). */
  followUp: z.lazy(() => PageWidgetSchema).optional(),
});

export const PerturbationEffectSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("widget"), widget: PageWidgetSchema }).strict(),
  z
    .object({
      kind: z.literal("native_dialog"),
      dialog: z.enum(["alert", "confirm", "prompt"]),
      message: z.string().min(1),
      defaultValue: z.string().optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal("tab"),
      title: z.string().min(1),
      /** Text someone types into the tab's editor, `charsPerStep` characters after each step. */
      text: z.string().default(""),
      charsPerStep: z.number().int().positive().default(12),
      /** The new tab comes to the front (the agent's page loses focus). */
      focus: z.boolean().default(true),
      /** With `focus`, the focus comes back by itself after this many steps. */
      returnAfter: z.number().int().positive().optional(),
    })
    .strict(),
  z.object({ kind: z.literal("scroll_jump"), dy: z.number().int() }).strict(),
  z
    .object({
      kind: z.literal("viewport"),
      width: z.number().int().positive(),
      height: z.number().int().positive(),
      /** The window gets its size back after this many steps. */
      restoreAfter: z.number().int().positive(),
    })
    .strict(),
]);
export type PerturbationEffect = z.input<typeof PerturbationEffectSchema>;
export type PerturbationEffectParsed = z.output<typeof PerturbationEffectSchema>;

/** One perturbation to apply now, with an id unique within the episode. */
export interface PerturbationEvent {
  id: string;
  effect: PerturbationEffect;
}

/** What became of an applied perturbation. */
export interface PerturbationStatus {
  id: string;
  /** Still visible / in effect. */
  active: boolean;
  /** How it ended: "button:<label>", "escape", "auto", "accept", "dismiss", "refocus", "closed", "restored". */
  endedBy?: string;
  /** A movable widget was dragged out of the way (it stays open but no longer in the way). */
  moved?: boolean;
}

/** Why a perturbation could not be applied (e.g. an occluder without a visible target). */
export interface PerturbationRefusal {
  id: string;
  reason: string;
}

/**
 * An environment that can be perturbed. `advancePerturbations` runs once after every agent step
 * (typing progresses, timers count down); `verifierDigest` hashes everything the task's verifier can
 * read, so that a test can prove that noise never changes it.
 */
export interface Perturbable {
  applyPerturbation(event: PerturbationEvent): Promise<PerturbationRefusal | null>;
  /** Returns whether anything the agent can see changed. */
  advancePerturbations(): Promise<boolean>;
  perturbationStatus(): Promise<PerturbationStatus[]>;
  /** The observation of the current state (after perturbations changed it). */
  observeNow(): Promise<Observation>;
  verifierDigest(): Promise<string>;
}

export function isPerturbable(env: object): env is Perturbable {
  const e = env as Partial<Perturbable>;
  return (
    typeof e.applyPerturbation === "function" &&
    typeof e.advancePerturbations === "function" &&
    typeof e.perturbationStatus === "function" &&
    typeof e.observeNow === "function" &&
    typeof e.verifierDigest === "function"
  );
}
