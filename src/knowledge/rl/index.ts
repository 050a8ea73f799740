export * from "./chess-skl-rl.ts";
export * from "./episode.ts";
export * from "./options.ts";
export * from "./records.ts";
export * from "./simulate.ts";
export * from "./z-hat.ts";
