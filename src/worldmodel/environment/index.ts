export * from "./world-model-environment.ts";
export * from "./world-model-suite.ts";
export * from "./worldbook-identity.ts";
