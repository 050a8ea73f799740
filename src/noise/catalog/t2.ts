import type { NoiseGenerator } from "../generator.ts";
import { g, modal, modalSpec, NEXT, PEOPLE, pick, sequence, toast, widget } from "./kit.ts";

/** Tier T2 of the perturbation catalog: ambient interruptions (toasts, notifications, banners, modals, native dialogs, tours). */
export const T2: ReadonlyArray<NoiseGenerator> = [
  g(
    "T2",
    "toast-info",
    1,
    "notification",
    "dismiss",
    "an information toast with a Dismiss button",
    (r) =>
      toast("status", pick(r, ["Sync complete", "New sign-in", "Storage almost full"]), {
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
      toast("status", pick(r, ["Saving…", "Connecting…", "Uploading 1 file"]), {
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
      modal("dialog", "Cookie settings", {
        body: ["Choose which cookies we may use."],
        buttons: [{ label: "Manage", effect: "none" }, { label: "Accept" }],
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
      modal("alertdialog", pick(r, ["Heads up", "Notice", "Information"]), {
        body: [pick(r, ["Scheduled maintenance tonight at 2:00.", "Your password expires in 5 days."])],
        buttons: [{ label: "OK" }],
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
      modal("dialog", "Keyboard shortcuts", {
        body: ["Ctrl+K search · Ctrl+S save · Esc close"],
        closeOnEscape: true,
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
      modal("dialog", "Join our newsletter", {
        body: ["Get 10% off your next order."],
        buttons: [{ label: "Subscribe", effect: "none" }, { label: "No thanks" }],
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
      sequence(
        {
          layout: "banner-top",
          role: "banner",
          title: "New features are here",
          buttons: [{ label: "Got it", effect: "next" }],
        },
        modalSpec("dialog", "Try the new editor", {
          body: ["Switch any time in settings."],
          buttons: [{ label: "Close" }],
        }),
      ),
  ),
  g(
    "T2",
    "backup-dialog",
    1,
    "modal",
    "dismiss",
    "a backup-complete dialog with OK (Escape closes it too)",
    () =>
      modal("alertdialog", "Backup complete", {
        body: ["All files were backed up."],
        buttons: [{ label: "OK" }],
        closeOnEscape: true,
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
      toast("alert", "You are offline. Reconnecting…", {
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
      toast("alert", `Battery low: ${5 + r.int(10)}%`, {
        autoCloseAfter: 2,
        buttons: [{ label: "Dismiss" }],
      }),
    { heldOut: true },
  ),
  g("T2", "three-step-tour", 3, "compositional", "dismiss", "a product tour of three blocking steps", () =>
    sequence(
      modalSpec("dialog", "Welcome tour (1/3)", { body: ["This is your dashboard."], buttons: NEXT }),
      modalSpec("dialog", "Welcome tour (2/3)", { body: ["Your files live here."], buttons: NEXT }),
      modalSpec("dialog", "Welcome tour (3/3)", { body: ["That's it!"], buttons: [{ label: "Done" }] }),
    ),
  ),
  g(
    "T2",
    "session-timeout-modal",
    1,
    "modal",
    "dismiss",
    "a session-timeout warning that blocks the page",
    () =>
      modal("alertdialog", "Are you still there?", {
        body: ["You will be signed out in 60 seconds."],
        buttons: [{ label: "Stay signed in" }],
        closeOnEscape: true,
      }),
    { heldOut: true },
  ),
  g("T2", "ad-interstitial", 1, "modal", "dismiss", "a full-page ad with a Skip button", (r) =>
    modal("dialog", "Advertisement", {
      body: [pick(r, ["Fresh coffee, delivered.", "Learn a language in 10 minutes a day."])],
      buttons: [{ label: "Skip ad" }],
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
      toast("alert", `Reminder: ${pick(r, [`1:1 with ${pick(r, PEOPLE)}`, "Team lunch", "Dentist"])}`, {
        body: ["in 15 minutes"],
        buttons: [{ label: "Snooze" }, { label: "Dismiss" }],
      }),
    { repeatable: true },
  ),
];
