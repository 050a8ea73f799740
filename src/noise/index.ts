export * from "./catalog.ts";
export * from "./generator.ts";
export * from "./schedule.ts";
export * from "./schedule-file.ts";
