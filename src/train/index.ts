export * from "./curve.ts";
export * from "./grpo.ts";
export * from "./losses.ts";
export * from "./prompt-context.ts";
export * from "./sft.ts";
export * from "./sft-records.ts";
