export * from "./candidates.ts";
export * from "./checkpoint.ts";
export * from "./features.ts";
export * from "./log-linear.ts";
export * from "./read-text.ts";
export * from "./trainable-policy.ts";
