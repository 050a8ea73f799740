#!/usr/bin/env node
// Installs what a fresh machine lacks: npm packages (npm ci) and Debian's Chromium for the web
// environment. Used by `npm test`, `npm run demo` and `npm run bench`. Idempotent and quiet when
// everything is present. Set REHEARSAL_SKIP_CHROMIUM=1 to skip the browser.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.status !== 0) {
    log(`'${cmd} ${args.join(" ")}' failed with exit code ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

// 1. npm packages: install when node_modules is missing or older than the lock file.
const lock = join(root, "package-lock.json");
const marker = join(root, "node_modules", ".package-lock.json");
const needsInstall =
  !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
if (needsInstall) {
  log("installing npm packages (npm ci)");
  run("npm", ["ci", "--no-audit", "--no-fund"]);
}

// 2. Chromium for the web environment.
const chromium = process.env.REHEARSAL_CHROMIUM ?? "/usr/bin/chromium";
if (!process.env.REHEARSAL_SKIP_CHROMIUM && !existsSync(chromium)) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const sudo = isRoot ? [] : ["sudo", "-n"];
  log(`Chromium not found at ${chromium}: installing Debian's chromium (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const cmd = (args) => (sudo.length ? ["sudo", ["-n", ...args]] : [args[0], args.slice(1)]);
  const [c1, a1] = cmd(["apt-get", "update", "-qq"]);
  run(c1, a1, { env });
  const [c2, a2] = cmd(["apt-get", "install", "-y", "-qq", "chromium"]);
  run(c2, a2, { env });
  if (!existsSync(chromium)) {
    log(
      `Chromium is still missing at ${chromium}. Install it (apt-get install chromium) or set REHEARSAL_CHROMIUM.`,
    );
    process.exit(1);
  }
  try {
    log(execFileSync(chromium, ["--version"], { encoding: "utf8" }).trim());
  } catch {
    // The version print is informative only.
  }
}
