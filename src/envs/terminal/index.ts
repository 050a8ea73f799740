export * from "./config.ts";
export * from "./environment.ts";
export * from "./episode.ts";
export * from "./sandbox.ts";
export * from "./state-view.ts";
export * from "./state-viewer.ts";
export * from "./suite.ts";
export * from "./tasks/spec.ts";
