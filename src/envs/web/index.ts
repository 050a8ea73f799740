export { type ActionContext, performAction } from "./actions.ts";
export { bareClickAndAriaSnapshot, bareClickAndScreenshot } from "./bare-baseline.ts";
export { BrowserPool, type BrowserPoolOptions } from "./browser-pool.ts";
export {
  CHROMIUM_FLAGS,
  DEFAULT_CHROMIUM_PATH,
  EXTRA_DISABLED_FEATURES,
  PLAYWRIGHT_DISABLED_FEATURES,
  resolveChromiumPath,
  SettleConfigSchema,
  ViewportSchema,
  type WebEnvironmentConfig,
  type WebEnvironmentConfigInput,
  WebEnvironmentConfigSchema,
  WebObservationConfigSchema,
} from "./config.ts";
export { createWebEnvironment, type WebEnvironmentDeps } from "./create-web-environment.ts";
export type { EndReason, Episode } from "./episode.ts";
export {
  changedParts,
  FingerprintMemo,
  fingerprintOf,
  type PartDigests,
  partDigests,
} from "./fingerprint-diff.ts";
export { toPlaywrightKeys } from "./keys.ts";
export { PageOracleActionSchema } from "./oracle.ts";
export {
  chromiumRssBytes,
  listDescendants,
  listProcesses,
  type ProcessInfo,
  rssBytes,
} from "./process-tree.ts";
export { type ReplayOptions, type ReplayOutcome, replayPrefix } from "./replay.ts";
export {
  type Branch,
  type BranchRequest,
  prefixKeys,
  ReplayBrancher,
  type ReplayBrancherOptions,
  type ReplayBrancherStats,
} from "./replay-brancher.ts";
export { webStateViewer } from "./state-view.ts";
export {
  BUILTIN_TASKS_DIR,
  CORE_DIR,
  type CreateWebSuiteOptions,
  createWebSuite,
  type WebSuite,
  type WebTaskManifest,
  WebTaskManifestSchema,
} from "./suite.ts";
export { startTaskServer, type TaskServer } from "./task-server.ts";
export { WebEnvironment, type WebEnvironmentMetrics } from "./web-environment.ts";
export { ReplayMismatchError, WEB_ERROR_CODES } from "./web-errors.ts";
