export * from "./branch-hooks.ts";
export * from "./catalog.ts";
export * from "./generator.ts";
export * from "./noisy-environment.ts";
export * from "./recovery.ts";
export * from "./schedule.ts";
export * from "./schedule-file.ts";
export * from "./tags.ts";
