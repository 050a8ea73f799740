import { z } from "zod";

/**
 * Features playwright-core 1.65 disables itself. Chromium keeps only the last `--disable-features`
 * switch, so ours must repeat them (checked in test/envs/web/units.test.ts against the bundle).
 */
export const PLAYWRIGHT_DISABLED_FEATURES: ReadonlyArray<string> = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Our additions: the omnibox popup WebUIs, which Chromium otherwise renders (an extra renderer
 * process) for every browser context, i.e. at every reset; and the spare renderer, a process
 * Chromium keeps started for the browser context that navigated last: a new context cannot use it,
 * so each new context ended one and started another (one process more, and ≈ 16 ms of CPU per
 * new context); and RenderDocument, under which every navigation of a frame builds a new frame host
 * and a new renderer-side frame with its own compositor, where without it a same-site navigation
 * keeps them: a reload of a task page costs ≈ 20 % less CPU (browser process and renderer) and a
 * reset ≈ 10–20 % less. Pages see no difference (each navigation still makes a new document).
 */
export const EXTRA_DISABLED_FEATURES: ReadonlyArray<string> = [
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
  "SpareRendererForSitePerProcess",
  "RenderDocument",
];

/** Chromium switches every browser of the pool gets (see docs: DESIGN "Real components"). */
export const CHROMIUM_FLAGS: ReadonlyArray<string> = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Wheel scrolling jumps instead of animating, so a step's scroll has finished when it settles.
  "--disable-smooth-scrolling",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...EXTRA_DISABLED_FEATURES].join(",")}`,
];

export const DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium";

/** The Chromium binary: explicit option, then $REHEARSAL_CHROMIUM, then the Debian package path. */
export function resolveChromiumPath(explicit?: string): string {
  return explicit ?? process.env.REHEARSAL_CHROMIUM ?? DEFAULT_CHROMIUM_PATH;
}

export const ViewportSchema = z
  .object({
    width: z.number().int().min(200).max(4096),
    height: z.number().int().min(200).max(4096),
  })
  .strict();

export const WebObservationConfigSchema = z
  .object({
    /** Include the accessibility-tree text (also used as `text`). */
    axtree: z.boolean().default(true),
    /** Include a PNG screenshot of the viewport. */
    screenshot: z.boolean().default(true),
    /** The axtree text is cut to this many characters (a final line says how much was left out). */
    maxAxtreeChars: z.number().int().min(200).max(1_000_000).default(20_000),
  })
  .strict();

export const SettleConfigSchema = z
  .object({
    /** Timers due within this many ms of their chain's start are waited for; later ones are not. */
    horizonMs: z.number().int().min(0).max(60_000).default(1000),
    /** The settle never takes longer: then the step's info says `settleTimedOut`. */
    maxMs: z.number().int().min(0).max(60_000).default(3000),
  })
  .strict();

export const WebEnvironmentConfigSchema = z
  .object({
    /** Chromium binary; default $REHEARSAL_CHROMIUM or /usr/bin/chromium. */
    executablePath: z.string().min(1).optional(),
    headless: z.boolean().default(true),
    viewport: ViewportSchema.prefault({ width: 800, height: 600 }),
    locale: z.string().min(2).default("en-US"),
    timezoneId: z.string().min(1).default("UTC"),
    /** `Date` inside pages is frozen at this time (timers still run); null leaves the real clock. */
    fixedTime: z.union([z.string().min(1), z.number(), z.null()]).default("2024-06-01T12:00:00Z"),
    /** A MiniWoB-style directory of .html task pages (or of task folders); default: the built-in suite. */
    tasksDir: z.string().min(1).optional(),
    /**
     * Folder the task server serves for `tasksDir` (it must hold it); default: the parent when
     * `core/` or `common/` lies beside `tasksDir` (MiniWoB++ layout), else `tasksDir` itself.
     */
    tasksRoot: z.string().min(1).optional(),
    /** Suite name for `tasksDir` (default: the directory's base name). */
    suiteName: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/)
      .optional(),
    observation: WebObservationConfigSchema.prefault({}),
    /** Limit for one browser operation (navigation, evaluation, input). */
    actionTimeoutMs: z.number().int().min(100).max(600_000).default(15_000),
    /** After each action the page settles until quiet (page/agent-settle.js): these are its limits. */
    settle: SettleConfigSchema.prefault({}),
    /** Extra fixed wait after each action, after the settle (0: none). */
    settleMs: z.number().int().min(0).max(10_000).default(0),
    /** Pixels per scroll action when the action gives no amount. */
    scrollAmountPx: z.number().int().min(1).max(100_000).default(200),
    /** Truncate episodes at the task's maxSteps. */
    enforceMaxSteps: z.boolean().default(true),
  })
  .strict();

export type WebEnvironmentConfig = z.infer<typeof WebEnvironmentConfigSchema>;
export type WebEnvironmentConfigInput = z.input<typeof WebEnvironmentConfigSchema>;
