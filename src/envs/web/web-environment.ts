import type { Page } from "playwright-core";
import {
  type Action,
  type Capabilities,
  type Environment,
  EnvironmentError,
  type EnvironmentSnapshot,
  EnvironmentSnapshotSchema,
  InternalError,
  type Logger,
  type Observation,
  type Perturbable,
  type PerturbationEvent,
  type PerturbationRefusal,
  type PerturbationStatus,
  type ResetOptions,
  type StepResult,
  UserError,
  type VerifierResult,
} from "../../core/index.ts";
import type { BrowserPool } from "./browser-pool.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { Episode } from "./episode.ts";
import { EpisodeIO } from "./episode-io.ts";
import {
  EpisodeLifecycle,
  type EpisodeLifecycleDeps,
  type WebEnvironmentMetrics,
} from "./episode-lifecycle.ts";
import { FingerprintMemo } from "./fingerprint-diff.ts";
import { canRestoreInPage, episodeOnSamePage, restoreInPage } from "./in-page-restore.ts";
import { translateOracleAction } from "./oracle.ts";
import { agentCall, type PageGlobals } from "./page-agent.ts";
import { type ReplayOptions, type ReplayOutcome, replayPrefix } from "./replay.ts";
import { scoreGlobals } from "./score.ts";
import type { WebSuite } from "./suite.ts";
import type { TaskServer } from "./task-server.ts";
import { browserCrashed, pageUnresponsive, WEB_ERROR_CODES } from "./web-errors.ts";
import { WebPerturbable } from "./web-perturbable.ts";
import { fingerprintPartsOf, parseSnapshotState, restoreInto, snapshotOf } from "./web-snapshot.ts";
import { endedStep, stepEpisode } from "./web-step.ts";

export type { WebEnvironmentMetrics } from "./episode-lifecycle.ts";

/** Operations that only read the page: the fingerprint read with the latest view stays valid. */
const READS_ONLY = new Set([
  "fingerprint",
  "snapshot",
  "supportsSnapshot",
  "verifierDigest",
  "perturbationStatus",
]);

/** The web environment: a Chromium context per episode on task pages from the local task server. */
export class WebEnvironment implements Environment, Perturbable {
  readonly family = "web";
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  readonly suite: WebSuite;
  readonly config: WebEnvironmentConfig;
  private readonly pool: BrowserPool;
  private readonly server: TaskServer;
  private readonly logger: Logger;
  /** The live episode, how episodes start and end, the totals (episode-lifecycle.ts). */
  private readonly life: EpisodeLifecycle;
  private readonly restores = { inPage: 0, fresh: 0, fallback: 0 };
  /** Part digests of recent fingerprints: a replay mismatch names the parts that changed. */
  private readonly prints = new FingerprintMemo();
  private readonly io: EpisodeIO;
  private readonly perturbable: WebPerturbable;

  constructor(args: EpisodeLifecycleDeps) {
    this.config = args.config;
    this.suite = args.suite;
    this.pool = args.pool;
    this.server = args.server;
    this.logger = args.logger;
    this.life = new EpisodeLifecycle(args);
    this.io = new EpisodeIO(this.config, this.server.origin, () => {
      this.life.totals.crashes += 1;
    });
    this.perturbable = new WebPerturbable(this.io, () => this.oracleAction());
  }

  /** The browser pool this environment opens its contexts in. */
  get browserPool(): BrowserPool {
    return this.pool;
  }

  /** Task server origin (`http://127.0.0.1:<port>`). */
  get origin(): string {
    return this.server.origin;
  }

  /**
   * Runs `fn` with the current episode's Playwright page (benchmarks, debugging). Changing the page
   * through it breaks the determinism guarantees; do not use it in policies.
   */
  async withPage<T>(fn: (page: Page) => Promise<T>): Promise<T> {
    const ep = this.live("withPage");
    return this.io.guard(ep, "withPage", () => fn(ep.handle.page));
  }

  metrics(): WebEnvironmentMetrics {
    return this.life.metrics();
  }

  /** Whether the current task page supports exact snapshots (rehearsalSaveState/RestoreState). */
  async supportsSnapshot(): Promise<boolean> {
    const ep = this.live("supportsSnapshot");
    return this.io.guard(ep, "supportsSnapshot", () =>
      this.io.eval<boolean>(
        ep,
        `typeof window.rehearsalSaveState === "function" && typeof window.rehearsalRestoreState === "function"`,
      ),
    );
  }

  async reset(options: ResetOptions): Promise<Observation> {
    return this.io.observe(await this.life.open(options), undefined);
  }

  async step(action: Action): Promise<StepResult> {
    const ep = this.live("step");
    if (ep.ended !== null && ep.last) return endedStep(ep, ep.last);
    return stepEpisode(this.io, this.perturbable, this.config, ep, action, () => {
      this.life.totals.steps += 1;
    });
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.life.episode;
    if (!ep) return { reward: 0, success: false, reason: "no episode: reset first", metrics: {} };
    const globals = ep.frozen
      ? ep.frozen.view.globals
      : await this.io.guard(ep, "evaluate", () => this.io.eval<PageGlobals>(ep, agentCall("globals")));
    const score = scoreGlobals(globals, ep.task);
    score.metrics.steps = ep.steps;
    score.metrics.blockedRequests = ep.handle.blocked.count;
    return score;
  }

  async fingerprint(): Promise<string> {
    return this.prints.remember(await this.fingerprintParts());
  }

  /** What `fingerprint()` hashes (see web-snapshot.ts); useful to explain a replay mismatch. */
  async fingerprintParts(): Promise<Record<string, unknown>> {
    return fingerprintPartsOf(this.io, this.live("fingerprint"));
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    return snapshotOf(this.io, this.suite, this.family, this.live("snapshot"));
  }

  /**
   * Restores a snapshot: into the live page when it shows the same task and seed (no new context,
   * no page load; see in-page-restore.ts), else into a freshly reset page.
   */
  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = EnvironmentSnapshotSchema.parse(snapshot);
    const state = parseSnapshotState(snap, this.family);
    const ep = this.life.episode;
    if (ep && !this.life.closed && canRestoreInPage(this.io, ep, snap, state)) {
      this.life.totals.blockedRequests += ep.handle.blocked.count;
      const next = episodeOnSamePage(ep);
      this.life.episode = next;
      const outcome = await restoreInPage(this.io, this.perturbable, next, state, ep.noise);
      if ("observation" in outcome) {
        this.restores.inPage += 1;
        this.life.totals.episodes += 1;
        return outcome.observation;
      }
      this.restores.fallback += 1;
      this.logger.debug("in-page restore missed; restoring on a fresh page", {
        taskId: snap.taskId,
        seed: snap.seed,
        missed: outcome.missed,
      });
    }
    const fresh = await this.life.open({ taskId: snap.taskId, seed: snap.seed });
    this.restores.fresh += 1;
    return restoreInto(this.io, this.perturbable, fresh, state);
  }

  /**
   * Makes the next restore of `taskId`/`seed` snapshots an in-page one: starts an episode of that task
   * and seed unless the live page shows them already. What restore reaches does not depend on it (search
   * calls it on idle environments, see search/prewarm.ts). No observation is read: the restore that
   * follows reads its own (a reset's would cost a page-agent round trip and its accessibility text).
   */
  async prewarm(target: { taskId: string; seed: number }): Promise<void> {
    if (!this.life.shows(target)) await this.life.open(target);
  }

  /** Episodes started in a new browser context (`opened`) and in the previous episode's (`reused`). */
  contextStats(): { opened: number; reused: number } {
    return this.life.contextStats();
  }

  /**
   * How restores were done: in the live page, on a freshly reset page (whose context may be the
   * previous episode's, see `contextStats`), and in-page attempts that fell back.
   */
  restoreStats(): { inPage: number; fresh: number; fallback: number } {
    return { ...this.restores };
  }

  async oracleAction(): Promise<Action | null> {
    const ep = this.live("oracleAction");
    if (ep.ended !== null || ep.frozen || ep.noise?.onNoiseTab) return null;
    return this.io.guard(ep, "oracleAction", async () => {
      const r = await this.io.eval<{ missing?: boolean; action?: unknown }>(ep, agentCall("oracle"));
      if (r.missing || r.action === null || r.action === undefined) return null;
      return translateOracleAction(r.action, (expression) => this.io.eval(ep, expression));
    });
  }

  /**
   * Resets to `taskId`/`seed` (default: the current episode's) and replays `prefix`; compares the
   * reached fingerprint with `expectedFingerprint` when given. A mismatch throws ReplayMismatchError
   * (`env.replay_mismatch`) unless `onMismatch: "report"`, which returns it in the outcome.
   */
  async branchFrom(
    prefix: ReadonlyArray<Action>,
    options: Partial<ReplayOptions> = {},
  ): Promise<ReplayOutcome> {
    const taskId = options.taskId ?? this.life.episode?.task.id;
    const seed = options.seed ?? this.life.episode?.seed;
    if (taskId === undefined || seed === undefined) {
      throw new UserError("env.branch_invalid", "branchFrom needs a taskId and seed (or a current episode)");
    }
    const expectedParts =
      options.expectedParts ??
      (options.expectedFingerprint === undefined ? undefined : this.prints.get(options.expectedFingerprint));
    return replayPrefix(this, {
      ...options,
      taskId,
      seed,
      prefix,
      ...(expectedParts ? { expectedParts } : {}),
    });
  }

  async close(): Promise<void> {
    await this.life.close();
  }

  // ---------------------------------------------------------------- Perturbable (web-perturbable.ts)

  /**
   * Applies a perturbation now (the noise layer calls this after the agent's action, so the next
   * observation shows it). Returns a refusal when it cannot apply here (nothing changed then).
   */
  async applyPerturbation(event: PerturbationEvent): Promise<PerturbationRefusal | null> {
    return this.perturbable.apply(this.live("applyPerturbation"), event);
  }

  async advancePerturbations(): Promise<boolean> {
    return this.perturbable.advance(this.live("advancePerturbations"));
  }

  async perturbationStatus(): Promise<PerturbationStatus[]> {
    return this.perturbable.status(this.live("perturbationStatus"));
  }

  async observeNow(): Promise<Observation> {
    const ep = this.live("observeNow");
    return this.io.observe(ep, undefined, await this.io.view(ep, true));
  }

  /** sha256 of everything the task's verifier can read (see page/agent.js `verifierState`). */
  async verifierDigest(): Promise<string> {
    return this.perturbable.verifierDigest(this.live("verifierDigest"));
  }

  // ---------------------------------------------------------------- internals

  private live(operation: string): Episode {
    if (this.life.closed)
      throw new EnvironmentError(WEB_ERROR_CODES.closed, `${operation} on a closed web environment`);
    const ep = this.life.episode;
    if (!ep)
      throw new InternalError(
        WEB_ERROR_CODES.notReset,
        `${operation} before reset(): reset an episode first`,
      );
    if (ep.handle.unresponsive) throw pageUnresponsive(operation, this.io.deadlineMs);
    if (ep.handle.dead) throw browserCrashed(operation);
    // Whatever may change the page makes the fingerprint read with the last view stale.
    if (!READS_ONLY.has(operation)) ep.printed = null;
    return ep;
  }
}
