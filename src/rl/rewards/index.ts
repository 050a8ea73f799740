export * from "./budget.ts";
export * from "./composite.ts";
export * from "./options.ts";
