#!/usr/bin/env node
// Runs the CLI from the built output when present, else from source through tsx.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "dist", "cli", "main.js");
let entry = built;
if (!existsSync(built)) {
  const { register } = await import("tsx/esm/api");
  register();
  entry = join(root, "src", "cli", "main.ts");
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv);
