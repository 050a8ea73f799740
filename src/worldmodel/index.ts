export * from "./environment/index.ts";
export * from "./eval/index.ts";
export * from "./runtime/index.ts";
export * from "./splits.ts";
export * from "./trace.ts";
export * from "./trace-file.ts";
export * from "./trace-import.ts";
export * from "./worldbook/index.ts";
