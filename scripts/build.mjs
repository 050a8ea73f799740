#!/usr/bin/env node
// `npm run build` (and `prepack`): compiles src/ into the outDir of tsconfig.build.json (dist/) from a
// clean directory, then copies every file of src/ that is not TypeScript (the page scripts injected
// into web pages, the built-in task pages, core.js, PROTOCOL.md, ...), which the built code reads
// from disk beside itself. Usage: node scripts/build.mjs [--out-dir DIR]
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const flag = process.argv.indexOf("--out-dir");
const config = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8"));
const outDir = resolve(root, flag >= 0 ? process.argv[flag + 1] : config.compilerOptions.outDir);
const inside = (child, parent) => !relative(parent, child).startsWith("..");
if (inside(src, outDir) || inside(outDir, src)) {
  process.stderr.write(`[build] refusing to build into ${outDir}: it holds or is inside the sources\n`);
  process.exit(2);
}
// Only a directory this script made (it leaves MARKER there) or an empty one is ever cleared.
const MARKER = ".rehearsal-build";
if (existsSync(outDir)) {
  // The configured outDir (dist/, git-ignored) is the project's own, marker or not.
  const own = flag < 0 || existsSync(join(outDir, MARKER)) || readdirSync(outDir).length === 0;
  if (!own) {
    process.stderr.write(
      `[build] refusing to clear ${outDir}: it is not empty and holds no ${MARKER} from an earlier build; pass an empty or new --out-dir\n`,
    );
    process.exit(2);
  }
  rmSync(outDir, { recursive: true, force: true });
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, MARKER), "Built by scripts/build.mjs; cleared by the next build.\n");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// REHEARSAL_BUILD_NO_CHECK=1 (the packed-package test, whose gate type-checks the same sources
// before it) emits the same files without type-checking them a second time.
const noCheck = process.env.REHEARSAL_BUILD_NO_CHECK === "1" ? ["--noCheck"] : [];
const r = spawnSync(
  process.execPath,
  [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", outDir, ...noCheck],
  { stdio: "inherit", cwd: root },
);
if (r.status !== 0) process.exit(r.status ?? 1);

/** Every non-TypeScript file under dir, as paths relative to src/. */
function assets(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...assets(p));
    else if (!/\.(ts|mts|cts)$/.test(name)) out.push(relative(src, p));
  }
  return out;
}
const copied = assets(src);
for (const file of copied) {
  mkdirSync(dirname(join(outDir, file)), { recursive: true });
  cpSync(join(src, file), join(outDir, file));
}
process.stderr.write(
  `[build] compiled src/ into ${relative(root, outDir) || outDir}, copied ${copied.length} assets\n`,
);
