import { relative } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The slow suites: real Chromium at scale, signals at many random points, the packed package. They
 * stay in the full gate (`npm test` runs every project); `npm run test:fast` runs the `fast` project
 * alone. A new slow suite is named `*.slow.test.ts` or listed here. Listed slowest first (the order the
 * slow suites start in a fresh clone).
 */
export const SLOW = [
  "test/**/*.slow.test.ts",
  "test/faults/web-search-signals.test.ts",
  "test/envs/web-tasks/suite-properties.test.ts",
  "test/noise/catalog.test.ts",
  "test/envs/web-tasks/oracle.test.ts",
  "test/noise/heuristic-recovery-live.test.ts",
  "test/noise/noisy-environment-conformance.test.ts",
  "test/envs/web/lifecycle.test.ts",
  "test/package/pack-install.test.ts",
  "test/cli/signals-cli.test.ts",
  "test/envs/web/replay.test.ts",
  "test/cli/noise-eval-cli.test.ts",
  "test/faults/web-run-signals.test.ts",
  "test/envs/web/faults.test.ts",
  "test/search/resume-kill.test.ts",
  "test/serve/web-serve.test.ts",
  "test/serve/python-client.test.ts",
  "test/web-browser-sharing.test.ts",
];

/**
 * The slow suites first, then the fast files; each part longest first by the durations of the last run
 * when every file has one (else the slow suites in `SLOW`'s order), so that two workers never end on
 * one long suite while the other idles. (Vitest's own order puts the slow suites last.) The fast files
 * come together because a fast worker (one module graph, one Chromium) is kept only while the next
 * file is also a fast one.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const duration = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`)?.duration;
    const slowFirst = (a: TestSpecification, b: TestSpecification) =>
      Number(a.project.name !== "slow") - Number(b.project.name !== "slow");
    if (base.every((f) => duration(f) !== undefined))
      return [...base].sort((a, b) => slowFirst(a, b) || (duration(b) ?? 0) - (duration(a) ?? 0));
    const rank = (f: TestSpecification) => {
      if (f.project.name !== "slow") return SLOW.length;
      const i = SLOW.indexOf(relative(root, f.moduleId));
      return Math.max(i, 0); // a *.slow.test.ts file (not listed) with the first ones
    };
    return [...base].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SLOW],
          // One module graph per worker for the fast files: each file no longer imports the sources
          // afresh (that import was a second or more per file, often more than its tests). They share
          // no state that matters: no module mocks, fake timers or stubbed globals; environment
          // variables and working directories are restored (`runMain` fails a call that leaks them);
          // shared browser pools are reference counted. The slow suites (signals, browser
          // lifecycles, processes) stay isolated.
          isolate: false,
          // Vitest's node environment plus a worker scope: set-up kept for the worker's files, torn
          // down when the worker stops. The set-up file gives every fast file the worker's one
          // Chromium (`shareBrowserAcrossFile()`); the isolated slow files keep one per file.
          environment: "./test/worker-environment.ts",
          setupFiles: ["./test/worker-setup.ts"],
        },
      },
      { extends: true, test: { name: "slow", include: SLOW } },
    ],
  },
});
