#!/usr/bin/env node
// Enforces the layering of docs/ARCHITECTURE.md: which src/ folder may import which, that only
// src/envs/web imports playwright-core, and that deterministic layers never read the wall clock or
// Math.random. Runs in `npm run lint` (and so in `npm test`).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** folder → folders it may import (besides itself). */
const ALLOWED = {
  core: [],
  store: ["core"],
  llm: ["core"],
  envs: ["core"],
  policies: ["core", "llm", "envs"],
  rollout: ["core", "store", "envs", "policies"],
  eval: ["core", "store", "envs", "policies", "rollout", "search", "noise"],
  noise: ["core", "envs"],
  search: ["core", "store", "envs", "policies", "rollout", "noise"],
  export: ["core", "store", "search", "llm"],
  knowledge: ["core", "store", "envs", "policies", "llm", "rollout", "eval", "export"],
  worldmodel: ["core", "store", "envs", "policies", "llm", "rollout", "eval"],
  rl: ["core", "store", "envs", "policies", "llm", "rollout", "eval", "worldmodel", "noise"],
  runner: ["core", "store", "envs", "policies", "llm", "rollout", "noise", "search", "eval", "export", "knowledge"],
  experiments: [
    "core", "store", "envs", "policies", "llm", "rollout", "noise", "search", "eval", "export", "knowledge",
    "worldmodel", "rl", "runner",
  ],
  bench: [],
  cli: ["*"],
  server: ["*"],
};
const DETERMINISTIC = new Set(["core", "search", "noise", "eval", "export", "rl", "knowledge", "worldmodel"]);
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
const importRe = /(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
for (const file of walk(src)) {
  const rel = relative(src, file).split(sep).join("/");
  const layer = rel.split("/")[0];
  const text = readFileSync(file, "utf8");
  if (!(layer in ALLOWED)) {
    problems.push(`${rel}: folder src/${layer} is not in the layer table of scripts/check-imports.mjs`);
    continue;
  }
  for (const m of text.matchAll(importRe)) {
    const spec = m[1] ?? m[2];
    if (spec === "playwright-core" || spec.startsWith("playwright")) {
      if (!rel.startsWith("envs/web/")) problems.push(`${rel}: only src/envs/web may import ${spec}`);
      continue;
    }
    if (!spec.startsWith(".")) continue;
    const target = relative(src, resolve(dirname(file), spec))
      .split(sep)
      .join("/");
    const targetLayer = target.split("/")[0];
    if (target.startsWith("..")) {
      problems.push(`${rel}: imports ${spec}, outside src/`);
      continue;
    }
    if (targetLayer === layer) continue;
    const allowed = ALLOWED[layer];
    if (!allowed.includes("*") && !allowed.includes(targetLayer)) {
      problems.push(
        `${rel}: src/${layer} may not import src/${targetLayer} (${spec}); allowed: ${allowed.join(", ") || "none"}`,
      );
    }
    if (targetLayer === "cli" || targetLayer === "server")
      problems.push(`${rel}: nothing imports src/${targetLayer}`);
  }
  if (DETERMINISTIC.has(layer) && !CLOCK_EXEMPT.has(rel)) {
    const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
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
