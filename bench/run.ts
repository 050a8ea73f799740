// Benchmarks, run by `npm run bench`. Figures are reported as ratios against a reference measured in
// the same run (never asserted on time in tests). Pass section names to run only some:
//   npm run bench -- frozenlake web
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchFrozenLake } from "./frozenlake.ts";
import { benchNoise } from "./noise.ts";
import { benchSearch } from "./search.ts";
import { benchTerminal } from "./terminal.ts";
import { benchWeb } from "./web.ts";

type Section = () => Promise<Record<string, number | string | boolean>>;

const sections: Record<string, Section> = {
  frozenlake: async () => ({ ...(await benchFrozenLake()) }),
  web: benchWeb,
  search: benchSearch,
  noise: benchNoise,
  terminal: benchTerminal,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const names = wanted.length > 0 ? wanted : Object.keys(sections);
  const results: Record<string, unknown> = {};
  for (const name of names) {
    const section = sections[name];
    if (!section) {
      console.error(`unknown bench section ${name}; known: ${Object.keys(sections).join(", ")}`);
      process.exit(2);
    }
    console.log(`\n== ${name} ==`);
    const r = await section();
    results[name] = r;
    for (const [k, v] of Object.entries(r))
      console.log(`${k.padEnd(34)} ${typeof v === "number" ? v.toFixed(3) : String(v)}`);
  }
  mkdirSync(join("bench", "results"), { recursive: true });
  const file = join("bench", "results", "latest.json");
  writeFileSync(file, `${JSON.stringify({ node: process.version, results }, null, 2)}\n`);
  console.log(`\nwrote ${file}`);
}

await main();
