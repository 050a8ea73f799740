import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";

/**
 * The real bin in the layout of an installed package, for the tests that must run it in a process of
 * their own (signals, SIGKILL): `bin/rehearsal.js` and `package.json` copied as they are, `dist/`
 * holding the sources compiled file by file with every non-TypeScript file of `src/` beside them (the
 * layout `scripts/build.mjs` writes), and no `src/`, so the bin takes its installed branch and runs
 * compiled JavaScript instead of loading tsx and compiling the sources again in every child. The
 * compiler is esbuild, the one tsx itself runs on each source file: the children run the same code.
 * `node_modules` and `.git` are links to the checkout's.
 *
 * Built once per content of the sources (a hash of every file under `src/`, the bin, `package.json`
 * and this file), in the system's temporary directory, shared by the test files and runs that see the
 * same sources; a changed source gives a new hash and a new build (builds unused for a day are
 * removed).
 */
const root = join(import.meta.dirname, "..", "..");

/** Every file under `dir`, as paths relative to `dir`, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? filesUnder(p).map((f) => join(name, f)) : [name];
    });
}

/** Compiles the checkout into `out` (a new, empty directory). */
async function build(out: string, files: string[]): Promise<void> {
  const { build: esbuild } = await import("esbuild");
  const src = join(root, "src");
  await esbuild({
    entryPoints: files.filter((f) => /\.ts$/.test(f) && !/\.d\.ts$/.test(f)).map((f) => join(src, f)),
    outdir: join(out, "dist"),
    outbase: src,
    // Each file compiles to a file of its own whose imports stay imports: a relative one names the
    // `.js` beside it (as tsc's rewriteRelativeImportExtensions writes it), packages stay packages.
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    keepNames: true, // the target and names as tsx compiles each file
    logLevel: "error",
    plugins: [
      {
        name: "relative-imports-stay",
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (a) =>
            a.kind === "entry-point" ? undefined : { path: a.path.replace(/\.ts$/, ".js"), external: true },
          );
        },
      },
    ],
  });
  for (const f of files.filter((f) => !/\.(ts|mts|cts)$/.test(f))) {
    mkdirSync(dirname(join(out, "dist", f)), { recursive: true });
    cpSync(join(src, f), join(out, "dist", f));
  }
  mkdirSync(join(out, "bin"));
  cpSync(join(root, "bin", "rehearsal.js"), join(out, "bin", "rehearsal.js"));
  cpSync(join(root, "package.json"), join(out, "package.json"));
  symlinkSync(join(root, "node_modules"), join(out, "node_modules"), "dir");
  if (existsSync(join(root, ".git"))) symlinkSync(join(root, ".git"), join(out, ".git"));
}

/** Removes the builds (of other sources) that no test has used for a day. */
function pruneOlderThanADay(cache: string): void {
  for (const name of readdirSync(cache)) {
    const p = join(cache, name);
    if (statSync(p).mtimeMs < Date.now() - 86_400_000) rmSync(p, { recursive: true, force: true });
  }
}

let built: Promise<string> | undefined;

/**
 * The compiled bin's path, built on first use (or found built by an earlier test file or run). Two
 * processes building at once each build into a directory of their own; the first rename wins and the
 * other's build is removed.
 */
export function compiledBin(): Promise<string> {
  built ??= (async () => {
    const files = filesUnder(join(root, "src"));
    const hash = createHash("sha256").update(root);
    for (const f of files) hash.update(`\0${f}\0`).update(readFileSync(join(root, "src", f)));
    for (const f of ["bin/rehearsal.js", "package.json", "test/cli/compiled-bin.ts"])
      hash.update(readFileSync(join(root, f)));
    const cache = join(tmpdir(), `rehearsal-compiled-bin-${userInfo().uid}`);
    const final = join(cache, hash.digest("hex").slice(0, 16));
    const bin = join(final, "bin", "rehearsal.js");
    if (existsSync(bin)) {
      utimesSync(final, new Date(), new Date()); // in use: not pruned
      return bin;
    }
    mkdirSync(cache, { recursive: true });
    pruneOlderThanADay(cache);
    const out = mkdtempSync(join(cache, "building-"));
    try {
      await build(out, files);
      renameSync(out, final);
    } catch (e) {
      rmSync(out, { recursive: true, force: true });
      if (!existsSync(bin)) throw e;
    }
    return bin;
  })();
  return built;
}
