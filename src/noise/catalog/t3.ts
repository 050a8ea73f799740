import type { NoiseGenerator } from "../generator.ts";
import { g, pick, widget } from "./kit.ts";

/** Tier T3 of the perturbation catalog: accidental interference with the agent's target (occlusion, scroll jumps and layout shifts, a resized window, focus steals). */
export const T3: ReadonlyArray<NoiseGenerator> = [
  g(
    "T3",
    "partial-occlusion-tooltip",
    1,
    "occlusion",
    "dismiss",
    "a tooltip covers most of the element the task needs next",
    (r) =>
      widget({
        layout: "occluder",
        role: "status",
        body: [pick(r, ["Tip: try the new shortcut", "New!", "Did you know?"])],
        buttons: [{ label: "Close tip" }],
        cover: 0.6 + r.int(3) / 10,
      }),
    { needsTarget: true },
  ),
  g(
    "T3",
    "occlusion-chat-bubble",
    1,
    "occlusion",
    "move",
    "a chat bubble lands on the target element; drag it away",
    () =>
      widget({
        layout: "occluder",
        role: "complementary",
        title: "Chat",
        movable: true,
        cover: 0.9,
      }),
    { needsTarget: true, heldOut: true },
  ),
  g(
    "T3",
    "scroll-jump-down",
    1,
    "shove",
    "scroll",
    "the page jumps down",
    (r) => ({ kind: "scroll_jump", dy: 300 + r.int(500) }),
    {
      recoveredBy: "next_action",
      repeatable: true,
    },
  ),
  g(
    "T3",
    "scroll-jump-up",
    0,
    "shove",
    "scroll",
    "the page jumps back to the top",
    () => ({ kind: "scroll_jump", dy: -2000 }),
    {
      recoveredBy: "next_action",
      repeatable: true,
    },
  ),
  g(
    "T3",
    "layout-shift-banner",
    1,
    "shove",
    "move",
    "a late banner pushes the page down: targets move",
    (r) =>
      widget({
        layout: "spacer",
        role: "region",
        title: pick(r, ["Recommended for you", "Loading offers…", "Free shipping over $50"]),
        height: 90 + r.int(80),
      }),
    { recoveredBy: "next_action" },
  ),
  g("T3", "viewport-shrink", 2, "resize", "wait", "the window shrinks for two steps, then returns", () => ({
    kind: "viewport",
    width: 560,
    height: 420,
    restoreAfter: 2,
  })),
  g(
    "T3",
    "viewport-narrow",
    1,
    "resize",
    "wait",
    "the window becomes narrow for a step",
    () => ({
      kind: "viewport",
      width: 480,
      height: 600,
      restoreAfter: 1,
    }),
    { heldOut: true },
  ),
  g(
    "T3",
    "focus-steal-quicknote",
    1,
    "focus-steal",
    "refocus",
    "a quick-note box grabs the keyboard focus from the input",
    () =>
      widget({
        layout: "panel",
        role: "dialog",
        title: "Quick note",
        stealFocus: true,
        buttons: [{ label: "Close" }],
      }),
  ),
  g(
    "T3",
    "focus-steal-search",
    1,
    "focus-steal",
    "refocus",
    "a help search box opens and takes the focus",
    () =>
      widget({
        layout: "corner",
        role: "search",
        title: "Search help",
        stealFocus: true,
        buttons: [{ label: "Close" }],
      }),
    { heldOut: true },
  ),
];
