#!/usr/bin/env node
// Installs what a fresh machine lacks: npm packages (npm ci) and Debian's Chromium for the web
// environment. Used by `npm test`, `npm run demo` and `npm run bench`. Idempotent and quiet when
// everything is present. Set REHEARSAL_SKIP_CHROMIUM=1 to skip the browser, REHEARSAL_SKIP_PYTHON=1 to
// skip Debian's python3-requests and python3-websockets (the Python client's tests, clients/python).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { saveSqlitePrebuild, scriptedPackages } from "./native-cache.mjs";

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
  // Install scripts run only for the packages that need them (see native-cache.mjs).
  run("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"]);
  run("npm", ["rebuild", "--no-audit", "--no-fund", ...scriptedPackages(root)]);
}
saveSqlitePrebuild(root, log);

/** Installs Debian packages with apt-get (through `sudo -n` when not root). */
function aptInstall(packages) {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const cmd = (args) => (isRoot ? [args[0], args.slice(1)] : ["sudo", ["-n", ...args]]);
  const [c1, a1] = cmd(["apt-get", "update", "-qq"]);
  run(c1, a1, { env });
  const [c2, a2] = cmd(["apt-get", "install", "-y", "-qq", ...packages]);
  run(c2, a2, { env });
}

// 2. Chromium for the web environment.
const chromium = process.env.REHEARSAL_CHROMIUM ?? "/usr/bin/chromium";
if (!process.env.REHEARSAL_SKIP_CHROMIUM && !existsSync(chromium)) {
  log(`Chromium not found at ${chromium}: installing Debian's chromium (apt-get)`);
  aptInstall(["chromium"]);
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

// 3. Debian's python3-requests and python3-websockets for the Python client's tests (they run
// /usr/bin/python3: a pyenv or venv python3 earlier on PATH is not the one they use).
const python = "/usr/bin/python3";
if (!process.env.REHEARSAL_SKIP_PYTHON && existsSync(python)) {
  const probe = spawnSync(python, ["-c", "import requests, websockets"], { stdio: "ignore" });
  if (probe.status !== 0) {
    log("installing Debian's python3-requests and python3-websockets (apt-get) for clients/python");
    aptInstall(["python3-requests", "python3-websockets"]);
  }
}
