import type { Page, Request } from "playwright-core";
import { EnvironmentError } from "../../core/index.ts";
import { WEB_ERROR_CODES, withTimeout } from "./web-errors.ts";

/** Resource types whose failed load makes a task page invalid (a missing script breaks the task). */
const REQUIRED_RESOURCES = new Set(["document", "script", "stylesheet"]);

/**
 * What breaks a task page while it loads and starts (uncaught script errors, missing files), watched
 * on one page for every episode started in it: `arm` before a load, `disarm` once the episode started.
 * A restart may load the entry page straight from the previous episode's page (EpisodePage.restart),
 * which lives on until the new document commits: only the main frame's navigation request counts
 * before that commit, not what the previous page still does (its timers' errors, its aborted loads).
 */
export class LoadWatch {
  private loading = false;
  private committed = false;
  problems: string[] = [];
  missingFiles: string[] = [];

  constructor(page: Page, origin: string) {
    const counts = (r: Request) =>
      this.committed || (r.isNavigationRequest() && r.frame() === page.mainFrame());
    page.on("framenavigated", (f) => {
      if (this.loading && f === page.mainFrame()) this.committed = true;
    });
    page.on("pageerror", (e) => {
      if (this.loading && this.committed)
        this.problems.push(`an uncaught script error (${scriptErrorText(e)})`);
    });
    page.on("response", (r) => {
      const request = r.request();
      if (
        this.loading &&
        r.status() >= 400 &&
        REQUIRED_RESOURCES.has(request.resourceType()) &&
        counts(request)
      ) {
        const path = r.url().replace(origin, "");
        this.missingFiles.push(path);
        this.problems.push(`a missing file ${path} (HTTP ${r.status()})`);
      }
    });
    page.on("requestfailed", (r) => {
      if (this.loading && r.url().startsWith(origin) && REQUIRED_RESOURCES.has(r.resourceType()) && counts(r))
        this.problems.push(`a file that failed to load ${r.url().replace(origin, "")}`);
    });
  }

  arm(): void {
    this.loading = true;
    this.committed = false;
    this.problems = [];
    this.missingFiles = [];
  }

  disarm(): void {
    this.loading = false;
  }
}

/**
 * Loads the entry page in `page` and starts its episode (seeded, no time limit); throws
 * `env.task_page_invalid` naming what broke the page. The seed's init script is installed already.
 * `evaluate` runs an expression in the page's main world (EpisodePage.evaluate: one protocol call,
 * no wrapper script of Playwright's compiled into each new document).
 */
export async function loadAndStartEpisode(
  page: Page,
  watch: LoadWatch,
  evaluate: <T>(expression: string) => Promise<T>,
  target: { origin: string; entryPath: string; seed: number; timeoutMs: number },
): Promise<void> {
  const { origin, entryPath, seed, timeoutMs } = target;
  watch.arm();
  await page.goto(origin + entryPath, { waitUntil: "load", timeout: timeoutMs });
  const started = await withTimeout(
    evaluate<{ status: string; utterance: string }>(START_EPISODE(seed)),
    timeoutMs,
    `starting the episode of ${entryPath}`,
  );
  let utterance = started.utterance;
  if (started.status === "ok") {
    // Not ready at once: genProblem finishes asynchronously.
    await page.waitForFunction("window.WOB_TASK_READY === true", undefined, { timeout: timeoutMs });
    utterance = await withTimeout(
      evaluate<string>("window.__rh.instruction().utterance"),
      timeoutMs,
      `reading the instruction of ${entryPath}`,
    );
  }
  const problems = watch.problems;
  if (started.status !== "ok" && started.status !== "ready") problems.unshift(started.status);
  else if (utterance === "") problems.push("an empty instruction after genProblem() (#query has no text)");
  watch.disarm();
  if (problems.length > 0) {
    throw new EnvironmentError(
      WEB_ERROR_CODES.taskPageInvalid,
      `task page ${entryPath} did not start a valid episode: it has ${problems.join("; ")}. ` +
        invalidPageFix(entryPath, watch.missingFiles),
      { details: { entryPath, problems, missingFiles: watch.missingFiles } },
    );
  }
}

/**
 * Starts the episode in the loaded page: `status` "ready" (with the instruction), "ok" (not ready
 * yet), or what is missing.
 */
const START_EPISODE = (seed: number) => `(() => {
  if (!window.core || typeof window.core.startEpisodeReal !== "function")
    return { status: "no core.startEpisodeReal (core.js not loaded)", utterance: "" };
  if (typeof window.genProblem !== "function") return { status: "no genProblem() function", utterance: "" };
  if (typeof Math.seedrandom === "function") Math.seedrandom(${JSON.stringify(seed)});
  window.core.EPISODE_MAX_TIME = Infinity;
  try {
    window.core.startEpisodeReal();
  } catch (e) {
    const text = e instanceof Error ? e.name + ": " + e.message : String(e);
    return { status: "an error thrown while starting the episode (genProblem): " + text, utterance: "" };
  }
  if (window.WOB_TASK_READY !== true) return { status: "ok", utterance: "" };
  return { status: "ready", utterance: window.__rh.instruction().utterance };
})()`;

/** The mount a task server path lies in: `/tasks/` or `/suites/<name>/` (see suite.ts). */
function mountOf(path: string): string {
  return /^\/(?:suites\/[^/]+|tasks)\//.exec(path)?.[0] ?? "/";
}

/**
 * How to fix an invalid page. A missing file outside the suite's served folder (a page loading
 * `../../core/...` above it) needs a served root higher up, not an edit of the page.
 */
function invalidPageFix(entryPath: string, missingFiles: ReadonlyArray<string>): string {
  const mount = mountOf(entryPath);
  const outside = missingFiles.filter((p) => !p.startsWith(mount) && !/^\/core\/[^/]+$/.test(p));
  const general =
    "Include /core/core.js, define genProblem() and fill #query with the instruction (PROTOCOL.md).";
  if (outside.length === 0) return general;
  return (
    `${outside.join(", ")} lies outside the served folder ${mount}: serve the tasks folder's parent ` +
    "(the default when core/ or common/ lies beside the tasks folder) or a folder above it with " +
    `--tasks-root DIR (the web option tasksRoot). ${general}`
  );
}

/** The first line of an uncaught page error, with the script and line it came from when known. */
function scriptErrorText(error: Error): string {
  const at = /(?:https?:\/\/[^/\s]+)(\/[^\s):]+:\d+)/.exec(error.stack ?? "");
  return `${error.message.split("\n")[0]}${at ? ` at ${at[1]}` : ""}`;
}
