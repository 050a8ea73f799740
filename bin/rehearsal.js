#!/usr/bin/env node
// The `rehearsal` command. In a checkout (src/ is present) it always runs the sources through tsx,
// so a stale dist/ left by `npm run build` or `npm pack` never shadows them. An installed package
// ships dist/ and no src/, so it runs the compiled JavaScript and needs no tsx.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "src", "cli", "main.ts");
let entry = join(root, "dist", "cli", "main.js");
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  entry = source;
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv);
