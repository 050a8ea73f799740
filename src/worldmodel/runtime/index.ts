export * from "./applicability.ts";
export * from "./contract.ts";
export * from "./llm-proposer.ts";
export * from "./outcomes.ts";
export * from "./retrieve.ts";
export * from "./simulator.ts";
export * from "./validation.ts";
export * from "./workspace.ts";
