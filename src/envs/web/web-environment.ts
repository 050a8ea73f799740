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
  ResetOptionsSchema,
  type StepResult,
  UserError,
  type VerifierResult,
} from "../../core/index.ts";
import type { BrowserPool } from "./browser-pool.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { Episode } from "./episode.ts";
import { EpisodeIO } from "./episode-io.ts";
import { canRestart, type EpisodePage, openEpisodePage } from "./episode-page.ts";
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

export interface WebEnvironmentMetrics {
  episodes: number;
  steps: number;
  /** Foreign requests blocked, over all episodes of this environment. */
  blockedRequests: number;
  /** Episodes lost to a dead browser or page. */
  crashes: number;
}

/** The web environment: a Chromium context per episode on task pages from the local task server. */
export class WebEnvironment implements Environment, Perturbable {
  readonly family = "web";
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  readonly suite: WebSuite;
  readonly config: WebEnvironmentConfig;
  private readonly pool: BrowserPool;
  private readonly sharedPool: boolean;
  private readonly server: TaskServer;
  private readonly logger: Logger;
  private episode: Episode | null = null;
  private closed = false;
  private readonly totals: WebEnvironmentMetrics = { episodes: 0, steps: 0, blockedRequests: 0, crashes: 0 };
  private readonly restores = { inPage: 0, fresh: 0, fallback: 0 };
  private readonly contexts = { opened: 0, reused: 0 };
  /** Part digests of recent fingerprints: a replay mismatch names the parts that changed. */
  private readonly prints = new FingerprintMemo();
  private readonly io: EpisodeIO;
  private readonly perturbable: WebPerturbable;

  constructor(args: {
    config: WebEnvironmentConfig;
    suite: WebSuite;
    pool: BrowserPool;
    sharedPool: boolean;
    server: TaskServer;
    logger: Logger;
  }) {
    this.config = args.config;
    this.suite = args.suite;
    this.pool = args.pool;
    this.sharedPool = args.sharedPool;
    this.server = args.server;
    this.logger = args.logger;
    this.io = new EpisodeIO(this.config, this.server.origin, () => {
      this.totals.crashes += 1;
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
    const live = this.episode ? this.episode.handle.blocked.count : 0;
    return { ...this.totals, blockedRequests: this.totals.blockedRequests + live };
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
    const ep = await this.open(options);
    return this.io.observe(ep, undefined);
  }

  private async open(options: ResetOptions): Promise<Episode> {
    if (this.closed) throw new EnvironmentError(WEB_ERROR_CODES.closed, "reset on a closed web environment");
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError("env.reset_invalid", `invalid reset options: ${parsed.error.issues[0]?.message}`);
    }
    const task = this.suite.get(parsed.data.taskId);
    const target = { entryPath: this.suite.entryPath(task.id), seed: parsed.data.seed };
    const handle = (await this.restartInPlace(target)) ?? (await this.openFresh(target));
    this.totals.episodes += 1;
    this.episode = {
      task,
      seed: parsed.data.seed,
      handle,
      steps: 0,
      ended: null,
      last: null,
      noise: null,
      frozen: null,
    };
    this.logger.debug("web episode started", { taskId: task.id, seed: parsed.data.seed });
    return this.episode;
  }

  async step(action: Action): Promise<StepResult> {
    const ep = this.live("step");
    if (ep.ended !== null && ep.last) return endedStep(ep, ep.last);
    return stepEpisode(this.io, this.perturbable, this.config, ep, action, () => {
      this.totals.steps += 1;
    });
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.episode;
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
    const ep = this.episode;
    if (ep && !this.closed && canRestoreInPage(this.io, ep, snap, state)) {
      this.totals.blockedRequests += ep.handle.blocked.count;
      const next = episodeOnSamePage(ep);
      this.episode = next;
      const outcome = await restoreInPage(this.io, this.perturbable, next, state);
      if ("observation" in outcome) {
        this.restores.inPage += 1;
        this.totals.episodes += 1;
        return outcome.observation;
      }
      this.restores.fallback += 1;
      this.logger.debug("in-page restore missed; restoring on a fresh page", {
        taskId: snap.taskId,
        seed: snap.seed,
        missed: outcome.missed,
      });
    }
    const fresh = await this.open({ taskId: snap.taskId, seed: snap.seed });
    this.restores.fresh += 1;
    return restoreInto(this.io, this.perturbable, fresh, state);
  }

  /**
   * Makes the next restore of `taskId`/`seed` snapshots an in-page one: resets to that task and seed
   * unless the live page shows them already. What restore reaches does not depend on it (search
   * calls it on idle environments, see search/prewarm.ts).
   */
  async prewarm(target: { taskId: string; seed: number }): Promise<void> {
    const ep = this.episode;
    const live = ep && !ep.handle.dead && !ep.handle.unresponsive && ep.noise === null;
    if (live && ep.task.id === target.taskId && ep.seed === target.seed) return;
    await this.reset(target);
  }

  /** Episodes started in a new browser context (`opened`) and in the previous episode's (`reused`). */
  contextStats(): { opened: number; reused: number } {
    return { ...this.contexts };
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
    const taskId = options.taskId ?? this.episode?.task.id;
    const seed = options.seed ?? this.episode?.seed;
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
    if (this.closed) return;
    this.closed = true;
    await this.endEpisode();
    await this.server.close();
    if (this.sharedPool) await this.pool.release();
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
    if (this.closed)
      throw new EnvironmentError(WEB_ERROR_CODES.closed, `${operation} on a closed web environment`);
    const ep = this.episode;
    if (!ep)
      throw new InternalError(
        WEB_ERROR_CODES.notReset,
        `${operation} before reset(): reset an episode first`,
      );
    if (ep.handle.unresponsive) throw pageUnresponsive(operation, this.io.deadlineMs);
    if (ep.handle.dead) throw browserCrashed(operation);
    return ep;
  }

  /**
   * The next episode in the current episode's context and page (no new context or renderer; see
   * EpisodePage.restart), or null when there is none to reuse or the restart failed (its context is
   * closed then and the caller opens a fresh one, which reports what a fresh page does).
   */
  private async restartInPlace(target: { entryPath: string; seed: number }): Promise<EpisodePage | null> {
    const ep = this.episode;
    if (!ep || !canRestart(ep.handle)) return null;
    this.episode = null;
    await ep.noise?.closeAll();
    this.totals.blockedRequests += ep.handle.blocked.count;
    try {
      await ep.handle.restart({ ...target, resetViewport: ep.noise !== null });
    } catch (error) {
      this.logger.debug("restart in the same context failed; opening a fresh one", {
        entryPath: target.entryPath,
        error: (error as Error).message,
      });
      return null;
    }
    this.contexts.reused += 1;
    return ep.handle;
  }

  /** A new context and page for the next episode; the previous context closes while it opens. */
  private async openFresh(target: { entryPath: string; seed: number }): Promise<EpisodePage> {
    const [handle] = await Promise.all([
      openEpisodePage({ pool: this.pool, config: this.config, origin: this.server.origin, ...target }),
      this.endEpisode(),
    ]);
    this.contexts.opened += 1;
    return handle;
  }

  private async endEpisode(): Promise<void> {
    const ep = this.episode;
    this.episode = null;
    if (!ep) return;
    await ep.noise?.closeAll();
    this.totals.blockedRequests += ep.handle.blocked.count;
    await ep.handle.close();
  }
}
