export * from "./examples.ts";
export * from "./formats.ts";
export * from "./materialize.ts";
export * from "./records.ts";
export * from "./sft-export.ts";
export * from "./tree-export.ts";
