export * from "./run-episode.ts";
export * from "./run-episodes.ts";
export * from "./summary.ts";
