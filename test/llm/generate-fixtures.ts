// Rewrites test/fixtures/llm/*.json from the tables in cases.ts.
// Run after changing the prompt or a case: npx tsx test/llm/generate-fixtures.ts
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixtureFiles } from "./cases.ts";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "llm");
mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(fixtureFiles())) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote ${join(dir, name)}`);
}
