export * from "./advantages.ts";
export * from "./export-trl.ts";
export * from "./metrics.ts";
export * from "./rewards/index.ts";
export * from "./rollout-groups.ts";
export * from "./wm-lookahead.ts";
export * from "./world-model.ts";
export * from "./worldbook-model.ts";
