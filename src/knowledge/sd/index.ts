export * from "./bootstrap.ts";
export * from "./datasets.ts";
export * from "./llm-knowledge-policy.ts";
export * from "./manifest.ts";
export * from "./options.ts";
export * from "./pipeline.ts";
export * from "./policy.ts";
