export * from "./agreement.ts";
export * from "./calibrate.ts";
export * from "./judge.ts";
export * from "./judge-prompt.ts";
export * from "./judge-rollouts.ts";
export * from "./judge-run.ts";
export * from "./judgment-schema.ts";
