export * from "./splits.ts";
export * from "./trace.ts";
export * from "./trace-file.ts";
export * from "./trace-import.ts";
export * from "./worldbook/index.ts";
