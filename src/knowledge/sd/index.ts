export * from "./bootstrap.ts";
export * from "./llm-knowledge-policy.ts";
export * from "./policy.ts";
