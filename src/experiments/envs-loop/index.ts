export * from "./options.ts";
export * from "./pipeline.ts";
export * from "./results.ts";
export * from "./steps.ts";
