import type { PageWidget, PerturbationEffect, Random } from "../core/index.ts";
import type { NoiseGenerator, NoiseTier, RecoveryBehaviour } from "./generator.ts";

/**
 * The perturbation catalog: 45 generators in three tiers (12 T1, 24 T2, 9 T3), 13 of them held out
 * for evaluation only. Each builds a concrete effect from a seeded random, so one generator yields
 * many events (texts, sizes, offsets vary). Effects are applied by the environment in things it
 * creates for them (a shadow-DOM noise layer, native dialogs, extra tabs, the window size).
 */

const pick = <T>(random: Random, items: ReadonlyArray<T>): T => items[random.int(items.length)] as T;

const PEOPLE = ["Alex", "Sam", "Priya", "Jonas", "Mei", "Tomás", "Ines", "Kofi"];
const NOTES = [
  "Agenda: budget review, hiring plan, launch date. Ask finance about Q3 numbers.",
  "Groceries: oat milk, lemons, rice, coffee beans, olive oil, basil.",
  "TODO: renew passport, book dentist, send slides to the team before Friday.",
  "Ideas for the offsite: hiking, cooking class, board games night, lake trip.",
];
const COMMANDS = [
  "$ npm run build\n> tsc -p .\n$ git status\nOn branch main\n$ ls -la",
  "$ cd ~/projects/site\n$ make test\nok 12 tests\n$ docker ps\nCONTAINER ID   IMAGE",
  "$ tail -f /var/log/syslog\nNov 29 10:01 cron[412]: job started\n$ top -b -n1 | head",
];

type Spec = Omit<NoiseGenerator, "build" | "recoveredBy" | "repeatable" | "needsTarget" | "heldOut"> & {
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

const widget = (w: PageWidget): PerturbationEffect => ({ kind: "widget", widget: w });

function g(
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

const T1: NoiseGenerator[] = [
  g(
    "T1",
    "notes-tab-typing",
    1,
    "concurrent-tab",
    "refocus",
    "another person opens a notes tab, types into it and it takes the focus",
    (r) => ({
      kind: "tab",
      title: pick(r, ["Notes", "Meeting notes", "Scratchpad"]),
      text: pick(r, NOTES),
      charsPerStep: 10 + r.int(10),
      focus: true,
    }),
  ),
  g(
    "T1",
    "terminal-tab",
    1,
    "concurrent-tab",
    "refocus",
    "a terminal tab opens in front and commands are typed into it",
    (r) => ({
      kind: "tab",
      title: pick(r, ["Terminal — build", "Terminal — server", "Terminal"]),
      text: pick(r, COMMANDS),
      charsPerStep: 14,
      focus: true,
    }),
  ),
  g(
    "T1",
    "email-draft-tab",
    1,
    "concurrent-tab",
    "refocus",
    "a mail draft opens in a new tab in front and someone writes it",
    (r) => ({
      kind: "tab",
      title: `Draft — Re: ${pick(r, ["quarterly report", "lunch on Friday", "invoice 2291"])}`,
      text: `Hi ${pick(r, PEOPLE)}, thanks for the update. I will look at it this afternoon and get back to you.`,
      charsPerStep: 16,
      focus: true,
    }),
    { heldOut: true },
  ),
  g(
    "T1",
    "background-tab-typing",
    0,
    "concurrent-tab",
    "ignore",
    "a tab opens behind the task and someone types into it; the task keeps the focus",
    (r) => ({
      kind: "tab",
      title: pick(r, ["Notes", "Shopping list", "Ideas"]),
      text: pick(r, NOTES),
      charsPerStep: 12,
      focus: false,
    }),
    { repeatable: true },
  ),
  g(
    "T1",
    "tab-focus-switch",
    1,
    "focus-switch",
    "refocus",
    "the focus switches to an empty new tab",
    () => ({
      kind: "tab",
      title: "New Tab",
      text: "",
      focus: true,
    }),
    { repeatable: true },
  ),
  g(
    "T1",
    "tab-focus-auto-return",
    1,
    "focus-switch",
    "wait",
    "a tab takes the focus for a moment and hands it back by itself",
    (r) => ({
      kind: "tab",
      title: pick(r, ["Calendar", "Music", "Chat"]),
      text: "",
      focus: true,
      returnAfter: 1 + r.int(2),
    }),
    { heldOut: true },
  ),
  g(
    "T1",
    "notes-panel-typing",
    1,
    "concurrent-panel",
    "dismiss",
    "a notes window opens over the page and someone is writing in it",
    (r) =>
      widget({
        layout: "panel",
        role: "complementary",
        title: "Sticky note",
        typing: { text: pick(r, NOTES), charsPerStep: 12 },
        buttons: [{ label: "Minimize" }],
      }),
    { repeatable: true },
  ),
  g(
    "T1",
    "chat-panel-typing",
    1,
    "concurrent-panel",
    "dismiss",
    "a team chat window opens and a colleague types a message",
    (r) =>
      widget({
        layout: "corner",
        role: "complementary",
        title: `Chat — ${pick(r, PEOPLE)}`,
        body: [`${pick(r, PEOPLE)} is typing…`],
        typing: { text: "are you free for a quick call later today? no rush", charsPerStep: 9 },
        buttons: [{ label: "Close chat" }],
      }),
  ),
  g(
    "T1",
    "terminal-panel",
    1,
    "concurrent-panel",
    "move",
    "a terminal window appears over the page with commands running; drag it away",
    (r) =>
      widget({
        layout: "panel",
        role: "complementary",
        title: "Terminal",
        typing: { text: pick(r, COMMANDS), charsPerStep: 18 },
        movable: true,
      }),
  ),
  g(
    "T1",
    "file-browser-panel",
    1,
    "concurrent-panel",
    "dismiss",
    "a file browser window opens and someone navigates folders in it",
    (r) =>
      widget({
        layout: "panel",
        role: "complementary",
        title: `Files — ~/${pick(r, ["Documents", "Downloads", "Pictures"])}`,
        body: ["📁 reports", "📁 invoices", "📄 notes.txt", "📄 budget.xlsx"],
        buttons: [{ label: "Close" }],
      }),
    { heldOut: true },
  ),
  g("T1", "window-drag", 1, "concurrent-panel", "dismiss", "a window is being dragged across the page", (r) =>
    widget({
      layout: "panel",
      role: "complementary",
      title: pick(r, ["Settings", "Preferences", "Display"]),
      body: ["Brightness ▮▮▮▮▯", "Night light: off"],
      drift: { dx: -(40 + r.int(40)), dy: 10 },
      buttons: [{ label: "Close" }],
    }),
  ),
  g(
    "T1",
    "spreadsheet-panel-typing",
    1,
    "concurrent-panel",
    "dismiss",
    "a spreadsheet window opens and numbers are typed into it",
    (r) =>
      widget({
        layout: "panel",
        role: "complementary",
        title: "budget.xlsx",
        typing: {
          text: `A1 ${100 + r.int(900)}\tB1 ${10 + r.int(90)}\tC1 =A1*B1\nA2 ${100 + r.int(900)}`,
          charsPerStep: 8,
        },
        buttons: [{ label: "Minimize" }],
      }),
    { heldOut: true },
  ),
];

const T2: NoiseGenerator[] = [
  g(
    "T2",
    "toast-info",
    1,
    "notification",
    "dismiss",
    "an information toast with a Dismiss button",
    (r) =>
      widget({
        layout: "toast",
        role: "status",
        title: pick(r, ["Sync complete", "New sign-in", "Storage almost full"]),
        body: [
          pick(r, [
            "Your files are up to date.",
            "A new device signed in.",
            "You have used 92% of your storage.",
          ]),
        ],
        buttons: [{ label: "Dismiss" }],
      }),
    { repeatable: true },
  ),
  g(
    "T2",
    "toast-auto",
    1,
    "notification",
    "wait",
    "a toast that goes away by itself after a step or two: waiting is right",
    (r) =>
      widget({
        layout: "toast",
        role: "status",
        title: pick(r, ["Saving…", "Connecting…", "Uploading 1 file"]),
        autoCloseAfter: 1 + r.int(2),
      }),
    { repeatable: true },
  ),
  g(
    "T2",
    "notification-stack",
    1,
    "notification",
    "dismiss",
    "a stack of three notifications with Clear all",
    (r) =>
      widget({
        layout: "stack",
        role: "region",
        title: "Notifications",
        body: [
          `${pick(r, PEOPLE)} mentioned you`,
          "Calendar: stand-up in 10 minutes",
          `${1 + r.int(9)} new messages`,
        ],
        buttons: [{ label: "Clear all" }],
      }),
    { repeatable: true },
  ),
  g("T2", "cookie-banner", 1, "banner", "dismiss", "a cookie consent sheet over the bottom of the page", () =>
    widget({
      layout: "sheet",
      role: "dialog",
      title: "We value your privacy",
      body: ["We use cookies to improve your experience."],
      buttons: [{ label: "Accept all" }, { label: "Reject all" }],
    }),
  ),
  g(
    "T2",
    "cookie-modal-backdrop",
    1,
    "modal",
    "dismiss",
    "a cookie consent modal that blocks the page until answered",
    () =>
      widget({
        layout: "modal",
        role: "dialog",
        title: "Cookie settings",
        body: ["Choose which cookies we may use."],
        buttons: [{ label: "Manage", effect: "none" }, { label: "Accept" }],
        backdrop: true,
      }),
    { heldOut: true },
  ),
  g(
    "T2",
    "modal-overlay",
    1,
    "modal",
    "dismiss",
    "a modal overlay with OK that blocks the page",
    (r) =>
      widget({
        layout: "modal",
        role: "alertdialog",
        title: pick(r, ["Heads up", "Notice", "Information"]),
        body: [pick(r, ["Scheduled maintenance tonight at 2:00.", "Your password expires in 5 days."])],
        buttons: [{ label: "OK" }],
        backdrop: true,
      }),
    { repeatable: true },
  ),
  g(
    "T2",
    "escape-only-modal",
    1,
    "modal",
    "escape",
    "a blocking modal without buttons that only Escape closes",
    () =>
      widget({
        layout: "modal",
        role: "dialog",
        title: "Keyboard shortcuts",
        body: ["Ctrl+K search · Ctrl+S save · Esc close"],
        closeOnEscape: true,
        backdrop: true,
      }),
  ),
  g(
    "T2",
    "native-alert",
    1,
    "native-dialog",
    "dismiss",
    "a browser alert() dialog",
    (r) => ({
      kind: "native_dialog",
      dialog: "alert",
      message: pick(r, ["Your session will expire soon.", "Changes saved.", "Connection restored."]),
    }),
    { repeatable: true },
  ),
  g(
    "T2",
    "native-confirm",
    1,
    "native-dialog",
    "dismiss",
    "a browser confirm() dialog",
    (r) => ({
      kind: "native_dialog",
      dialog: "confirm",
      message: pick(r, ["Leave this page? Unsaved changes may be lost.", "Allow this site to open pop-ups?"]),
    }),
    { heldOut: true },
  ),
  g(
    "T2",
    "native-prompt",
    1,
    "native-dialog",
    "escape",
    "a browser prompt() dialog asking for text",
    (r) => ({
      kind: "native_dialog",
      dialog: "prompt",
      message: pick(r, ["Name this workspace:", "Enter a label for this device:"]),
      defaultValue: "",
    }),
  ),
  g(
    "T2",
    "permission-prompt",
    1,
    "prompt",
    "dismiss",
    "a site permission prompt (notifications, location)",
    (r) =>
      widget({
        layout: "banner-top",
        role: "alertdialog",
        title: `This site wants to ${pick(r, ["show notifications", "know your location", "use your camera"])}`,
        buttons: [{ label: "Block" }, { label: "Allow" }],
      }),
  ),
  g(
    "T2",
    "newsletter-popup",
    1,
    "modal",
    "dismiss",
    "a newsletter sign-up pop-up that blocks the page",
    () =>
      widget({
        layout: "modal",
        role: "dialog",
        title: "Join our newsletter",
        body: ["Get 10% off your next order."],
        buttons: [{ label: "Subscribe", effect: "none" }, { label: "No thanks" }],
        backdrop: true,
      }),
    { heldOut: true },
  ),
  g("T2", "chat-widget", 1, "widget", "dismiss", "a support chat widget opens in the corner", () =>
    widget({
      layout: "corner",
      role: "complementary",
      title: "Need help?",
      body: ["Hi! I'm the virtual assistant. Ask me anything."],
      buttons: [{ label: "Close" }],
    }),
  ),
  g("T2", "update-banner", 1, "banner", "dismiss", "an update banner across the top of the page", (r) =>
    widget({
      layout: "banner-top",
      role: "banner",
      title: `Version ${2 + r.int(3)}.${r.int(10)} is available`,
      buttons: [{ label: "Restart now", effect: "none" }, { label: "Later" }],
    }),
  ),
  g(
    "T2",
    "survey",
    1,
    "modal",
    "dismiss",
    "a satisfaction survey pop-up",
    () =>
      widget({
        layout: "modal",
        role: "dialog",
        title: "How are we doing?",
        body: ["Rate your experience from 1 to 5."],
        buttons: [{ label: "1", effect: "none" }, { label: "5", effect: "none" }, { label: "Skip" }],
      }),
    { heldOut: true },
  ),
  g(
    "T2",
    "banner-then-popup",
    2,
    "compositional",
    "dismiss",
    "a banner; dismissing it brings a pop-up, which must be closed too",
    () =>
      widget({
        layout: "banner-top",
        role: "banner",
        title: "New features are here",
        buttons: [{ label: "Got it", effect: "next" }],
        followUp: {
          layout: "modal",
          role: "dialog",
          title: "Try the new editor",
          body: ["Switch any time in settings."],
          buttons: [{ label: "Close" }],
          backdrop: true,
        },
      }),
  ),
  g(
    "T2",
    "backup-dialog",
    1,
    "modal",
    "dismiss",
    "a backup-complete dialog with OK (Escape closes it too)",
    () =>
      widget({
        layout: "modal",
        role: "alertdialog",
        title: "Backup complete",
        body: ["All files were backed up."],
        buttons: [{ label: "OK" }],
        closeOnEscape: true,
        backdrop: true,
      }),
  ),
  g(
    "T2",
    "download-bar",
    1,
    "banner",
    "dismiss",
    "a download bar at the bottom of the window",
    (r) =>
      widget({
        layout: "banner-bottom",
        role: "region",
        title: `${pick(r, ["report.pdf", "invoice-2291.pdf", "photo.jpg"])} downloaded`,
        buttons: [{ label: "Close download bar" }],
      }),
    { repeatable: true },
  ),
  g(
    "T2",
    "offline-toast-auto",
    1,
    "notification",
    "wait",
    "a connection-lost toast that disappears after a step",
    () =>
      widget({
        layout: "toast",
        role: "alert",
        title: "You are offline. Reconnecting…",
        autoCloseAfter: 1,
      }),
    { repeatable: true },
  ),
  g(
    "T2",
    "low-battery",
    1,
    "notification",
    "wait",
    "a low-battery warning that times out (or can be dismissed)",
    (r) =>
      widget({
        layout: "toast",
        role: "alert",
        title: `Battery low: ${5 + r.int(10)}%`,
        autoCloseAfter: 2,
        buttons: [{ label: "Dismiss" }],
      }),
    { heldOut: true },
  ),
  g("T2", "three-step-tour", 3, "compositional", "dismiss", "a product tour of three blocking steps", () =>
    widget({
      layout: "modal",
      role: "dialog",
      title: "Welcome tour (1/3)",
      body: ["This is your dashboard."],
      buttons: [{ label: "Next", effect: "next" }],
      backdrop: true,
      followUp: {
        layout: "modal",
        role: "dialog",
        title: "Welcome tour (2/3)",
        body: ["Your files live here."],
        buttons: [{ label: "Next", effect: "next" }],
        backdrop: true,
        followUp: {
          layout: "modal",
          role: "dialog",
          title: "Welcome tour (3/3)",
          body: ["That's it!"],
          buttons: [{ label: "Done" }],
          backdrop: true,
        },
      },
    }),
  ),
  g(
    "T2",
    "session-timeout-modal",
    1,
    "modal",
    "dismiss",
    "a session-timeout warning that blocks the page",
    () =>
      widget({
        layout: "modal",
        role: "alertdialog",
        title: "Are you still there?",
        body: ["You will be signed out in 60 seconds."],
        buttons: [{ label: "Stay signed in" }],
        closeOnEscape: true,
        backdrop: true,
      }),
    { heldOut: true },
  ),
  g("T2", "ad-interstitial", 1, "modal", "dismiss", "a full-page ad with a Skip button", (r) =>
    widget({
      layout: "modal",
      role: "dialog",
      title: "Advertisement",
      body: [pick(r, ["Fresh coffee, delivered.", "Learn a language in 10 minutes a day."])],
      buttons: [{ label: "Skip ad" }],
      backdrop: true,
    }),
  ),
  g(
    "T2",
    "calendar-reminder",
    1,
    "notification",
    "dismiss",
    "a calendar reminder with Snooze and Dismiss",
    (r) =>
      widget({
        layout: "toast",
        role: "alert",
        title: `Reminder: ${pick(r, [`1:1 with ${pick(r, PEOPLE)}`, "Team lunch", "Dentist"])}`,
        body: ["in 15 minutes"],
        buttons: [{ label: "Snooze" }, { label: "Dismiss" }],
      }),
    { repeatable: true },
  ),
];

const T3: NoiseGenerator[] = [
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

export const CATALOG: ReadonlyArray<NoiseGenerator> = [...T1, ...T2, ...T3];

const BY_NAME = new Map(CATALOG.map((g) => [g.name, g]));

export function generatorByName(name: string): NoiseGenerator | undefined {
  return BY_NAME.get(name);
}

/** Generators of a split: `train` (usable in search and training) or `heldout` (evaluation only). */
export function generatorsOf(split: "train" | "heldout" | "all"): NoiseGenerator[] {
  if (split === "all") return [...CATALOG];
  return CATALOG.filter((g) => g.heldOut === (split === "heldout"));
}
