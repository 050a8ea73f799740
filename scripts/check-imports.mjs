#!/usr/bin/env node
// Enforces the layering of docs/ARCHITECTURE.md: which src/ folder may import which, which folder
// alone may import each heavy third-party package (playwright-core, chess.js, better-sqlite3,
// openai), that only the CLI's output module writes to process.stdout / process.stderr, and that
// deterministic layers never read the wall clock or Math.random. Runs in `npm run lint` (and so in
// `npm test`).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** What the run layer may import; the experiments build on it and on the planned method layers. */
const RUNNER_IMPORTS = [
  "core",
  "store",
  "envs",
  "policies",
  "llm",
  "rollout",
  "noise",
  "search",
  "eval",
  "export",
  "knowledge",
  "worldmodel",
  "rl",
];

/** folder → folders it may import (besides itself). */
const ALLOWED = {
  core: [],
  store: ["core"],
  llm: ["core"],
  envs: ["core"],
  policies: ["core", "llm", "envs"],
  rollout: ["core", "store", "envs", "policies"],
  eval: ["core", "store", "envs", "policies", "rollout", "noise"],
  noise: ["core", "envs"],
  search: ["core", "store", "envs", "policies", "rollout", "noise"],
  export: ["core", "store", "search", "llm"],
  knowledge: ["core", "store", "envs", "policies", "llm", "rollout", "eval", "export"],
  worldmodel: ["core", "store", "envs", "policies", "llm", "rollout", "eval", "knowledge"],
  rl: ["core", "store", "envs", "policies", "llm", "rollout", "eval", "worldmodel", "noise"],
  runner: RUNNER_IMPORTS,
  experiments: [...RUNNER_IMPORTS, "worldmodel", "rl", "runner", "train"],
  train: ["core", "store", "envs", "policies", "rollout", "rl", "export", "knowledge"],
  testing: ["core", "store", "llm"],
  ui: ["core", "store", "search", "noise", "eval", "knowledge", "worldmodel"],
  serve: ["core", "store", "envs", "rollout", "runner"],
  cli: ["*"],
};
/** Rows for folders that later issues add (the table is checked for rows without a folder). */
const PLANNED = new Set([]);
/** Files directly in src/: the package's root entry, which re-exports the library layers. */
const ROOT_FILES = { "index.ts": { mayNotImport: ["cli", "testing"] } };
/** Third-party packages confined to one folder (prefix of the path under src/), plus exact files. */
const PACKAGE_HOMES = {
  "playwright-core": ["envs/web/"],
  playwright: ["envs/web/"],
  "chess.js": ["envs/chess/"],
  "better-sqlite3": ["store/"],
  openai: ["llm/"],
};
/** The only files that may name process.stdout / process.stderr, and why. */
const STDIO_EXEMPT = {
  "cli/output.ts": "the CLI's output module: every result and error message",
  "cli/progress.ts": "the live progress line, drawn on stderr by cli-progress",
  "cli/context.ts": "the logger's sink (REHEARSAL_LOG), one JSON line per record on stderr",
  "cli/main.ts": "ends quietly on EPIPE when stdout is closed (listens, never writes)",
  "cli/commands/export.ts": "hands stdout to the export writer as the destination when there is no --out",
};
const DETERMINISTIC = new Set([
  "core",
  "search",
  "noise",
  "eval",
  "export",
  "rl",
  "knowledge",
  "worldmodel",
  "train",
]);
const CLOCK_EXEMPT = new Set(["core/system-runtime.ts"]);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

const problems = [];
for (const layer of Object.keys(ALLOWED)) {
  const exists = existsSync(join(src, layer)) && statSync(join(src, layer)).isDirectory();
  if (!exists && !PLANNED.has(layer))
    problems.push(`src/${layer}: a row of the layer table without a folder; remove the row`);
}
const importRe = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const stripComments = (text) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
const packageOf = (spec) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");
for (const file of walk(src)) {
  const rel = relative(src, file).split(sep).join("/");
  const isRootFile = !rel.includes("/");
  const layer = isRootFile ? rel : rel.split("/")[0];
  const text = readFileSync(file, "utf8");
  if (isRootFile && !(rel in ROOT_FILES)) {
    problems.push(`${rel}: only ${Object.keys(ROOT_FILES).join(", ")} may sit directly in src/`);
    continue;
  }
  if (!isRootFile && !(layer in ALLOWED)) {
    problems.push(`${rel}: folder src/${layer} is not in the layer table of scripts/check-imports.mjs`);
    continue;
  }
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2];
    if (!spec.startsWith(".")) {
      const homes = PACKAGE_HOMES[packageOf(spec)];
      if (homes && !homes.some((home) => (home.endsWith("/") ? rel.startsWith(home) : rel === home)))
        problems.push(
          `${rel}: imports ${spec}, which only ${homes.map((h) => `src/${h}`).join(", ")} may import`,
        );
      continue;
    }
    const target = relative(src, resolve(dirname(file), spec))
      .split(sep)
      .join("/");
    const targetLayer = target.split("/")[0];
    if (target.startsWith("..")) {
      problems.push(`${rel}: imports ${spec}, outside src/`);
      continue;
    }
    if (isRootFile) {
      if (ROOT_FILES[rel].mayNotImport.includes(targetLayer))
        problems.push(`${rel}: the root entry may not import src/${targetLayer} (${spec})`);
      continue;
    }
    if (targetLayer === layer) continue;
    const allowed = ALLOWED[layer];
    if (!allowed.includes("*") && !allowed.includes(targetLayer)) {
      problems.push(
        `${rel}: src/${layer} may not import src/${targetLayer} (${spec}); allowed: ${allowed.join(", ") || "none"}`,
      );
    }
    if (targetLayer === "cli" || targetLayer === "testing")
      problems.push(`${rel}: nothing in src/ imports src/${targetLayer}`);
  }
  const code = stripComments(text);
  if (/\bprocess\.(stdout|stderr)\b/.test(code) && !(rel in STDIO_EXEMPT))
    problems.push(
      `${rel}: names process.stdout/stderr; only the CLI's output module writes there (exemptions: ${Object.keys(STDIO_EXEMPT).join(", ")})`,
    );
  if (DETERMINISTIC.has(layer) && !CLOCK_EXEMPT.has(rel)) {
    for (const bad of ["Math.random(", "Date.now(", "new Date()", "performance.now("]) {
      if (code.includes(bad))
        problems.push(`${rel}: ${bad.replace("(", "")} in a deterministic layer; use the injected Runtime`);
    }
  }
}

if (problems.length > 0) {
  process.stderr.write(
    `Import rules broken (${problems.length}):\n${problems.map((p) => `  - ${p}`).join("\n")}\n`,
  );
  process.exit(1);
}
