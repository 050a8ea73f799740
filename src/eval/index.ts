export * from "./discovery.ts";
export * from "./entropy.ts";
export * from "./evaluate.ts";
export * from "./pass-at-k.ts";
export * from "./pass-report.ts";
export * from "./robustness.ts";
