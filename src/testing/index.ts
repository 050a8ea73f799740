/**
 * `rehearsal/testing`: what others need to test their own parts against Rehearsal's contracts.
 * The conformance kits register vitest suites (vitest is an optional peer dependency: install it to
 * use them); the memory store and the record/replay LLM server run anywhere.
 */

export {
  type FixtureEntry,
  type FixtureFile,
  fixtureEntry,
  loadFixtureFile,
  parseFixtureFile,
  type ReceivedRequest,
  type ReplayServer,
  type ReplayServerOptions,
  recordFixture,
  startReplayServer,
} from "../llm/index.ts";
export { createMemoryStore } from "../store/index.ts";
export {
  describeEnvironmentConformance,
  type EnvironmentConformanceOptions,
} from "./environment-conformance.ts";
export { describeStoreConformance } from "./store-conformance.ts";
