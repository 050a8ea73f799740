// Keeps `npm ci` on a machine that has built better-sqlite3 once from having to compile it again.
//
// better-sqlite3 installs through prebuild-install, which first looks for its prebuilt binary in npm's
// cache folder (`<npm cache>/_prebuilds/`) and then downloads it from GitHub. Where GitHub cannot be
// reached it compiles SQLite from source (about a minute of CPU on two cores) on every fresh install.
// After a successful build, `saveSqlitePrebuild` packs the built binary into exactly the cache file
// prebuild-install looks for (its own naming: package version, Node ABI, platform, libc, arch), so the
// next install on this machine unpacks it in a second. A binary that does not load is never cached.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The packages whose install scripts the project needs: those `allowScripts` in package.json approves.
 * node-liblzma (an optional dependency of just-bash, used only by its `xz` command, which no Rehearsal
 * environment offers) is not among them: its build is half a minute of CPU per install, and
 * `npm rebuild node-liblzma` builds it when wanted.
 */
export function scriptedPackages(root) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  return Object.entries(pkg.allowScripts ?? {})
    .filter(([, allowed]) => allowed === true)
    .map(([name]) => name);
}

/** The cache file prebuild-install reads for the installed better-sqlite3, or undefined. */
export function sqlitePrebuildPath(root) {
  const pkgDir = join(root, "node_modules", "better-sqlite3");
  const toolDir = join(root, "node_modules", "prebuild-install");
  if (!existsSync(join(pkgDir, "package.json")) || !existsSync(join(toolDir, "util.js"))) return undefined;
  const require = createRequire(join(toolDir, "index.js"));
  const util = require("./util.js");
  const pkg = require(join(pkgDir, "package.json"));
  const rc = require("./rc.js")(pkg);
  return util.cachedPrebuild(util.getDownloadUrl({ ...rc, pkg }));
}

/** Packs the built better-sqlite3 binary into prebuild-install's cache when it loads and is not cached. */
export function saveSqlitePrebuild(root, log) {
  let cached;
  try {
    cached = sqlitePrebuildPath(root);
  } catch (error) {
    log(`not caching the better-sqlite3 build: ${error.message}`);
    return;
  }
  const pkgDir = join(root, "node_modules", "better-sqlite3");
  const binary = join("build", "Release", "better_sqlite3.node");
  if (cached === undefined || existsSync(cached) || !existsSync(join(pkgDir, binary))) return;
  const probe = spawnSync(process.execPath, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: root,
    stdio: "ignore",
  });
  if (probe.status !== 0) return;
  const partial = `${cached}.${process.pid}.partial`;
  try {
    mkdirSync(dirname(cached), { recursive: true });
    const tar = spawnSync("tar", ["-czf", partial, "-C", pkgDir, binary], { stdio: "ignore" });
    if (tar.status !== 0) throw new Error(`tar exited with ${tar.status}`);
    renameSync(partial, cached);
    log(`cached the better-sqlite3 build for later installs: ${cached}`);
  } catch (error) {
    rmSync(partial, { force: true });
    log(`not caching the better-sqlite3 build: ${error.message}`);
  }
}
