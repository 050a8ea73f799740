/**
 * The package's root entry (`import … from "rehearsal"`): the contracts, the run store, FrozenLake,
 * the built-in policies, the episode loop, ENVS search, evaluation and export. The other parts have
 * their own entries (`rehearsal/envs/web`, `rehearsal/envs/chess`, `rehearsal/llm`,
 * `rehearsal/noise`, `rehearsal/knowledge`, `rehearsal/testing`, …; see `exports` in package.json),
 * so that a FrozenLake user does not load Playwright or chess.js.
 */
export * from "./core/index.ts";
export * from "./envs/frozenlake/index.ts";
export * from "./eval/index.ts";
export * from "./export/index.ts";
export { createLlmPolicy, type LlmPolicyOptions } from "./policies/llm-policy.ts";
export { createOraclePolicy } from "./policies/oracle-policy.ts";
export { createRandomPolicy } from "./policies/random-policy.ts";
export { createScriptedPolicy } from "./policies/scripted-policy.ts";
export * from "./rollout/index.ts";
export * from "./search/index.ts";
export * from "./store/index.ts";
