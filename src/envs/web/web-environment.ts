import type { Page } from "playwright-core";
import {
  type Action,
  type ActionError,
  ActionSchema,
  type Capabilities,
  canonicalJson,
  type Environment,
  EnvironmentError,
  type EnvironmentSnapshot,
  EnvironmentSnapshotSchema,
  InternalError,
  type Logger,
  type Observation,
  type Perturbable,
  PerturbationEffectSchema,
  type PerturbationEvent,
  type PerturbationRefusal,
  type PerturbationStatus,
  type ResetOptions,
  ResetOptionsSchema,
  type StepResult,
  sha256Hex,
  UserError,
  type VerifierResult,
} from "../../core/index.ts";
import { performAction } from "./actions.ts";
import type { BrowserPool } from "./browser-pool.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import { type Episode, evalIn, guardIn, readView } from "./episode.ts";
import { openEpisodePage } from "./episode-page.ts";
import { buildObservation } from "./observe.ts";
import { translateOracleAction } from "./oracle.ts";
import { agentCall, FINGERPRINT_EXPRESSION, type PageGlobals, type PageView } from "./page-agent.ts";
import { EpisodePerturbations } from "./perturbations.ts";
import { type ReplayOptions, type ReplayOutcome, replayPrefix } from "./replay.ts";
import { scoreGlobals } from "./score.ts";
import { type SnapshotState, SnapshotStateSchema } from "./snapshot-state.ts";
import type { WebSuite } from "./suite.ts";
import type { TaskServer } from "./task-server.ts";
import { browserCrashed, WEB_ERROR_CODES, withTimeout } from "./web-errors.ts";

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
    return this.guard(ep, "withPage", () => fn(ep.handle.page));
  }

  metrics(): WebEnvironmentMetrics {
    const live = this.episode ? this.episode.handle.blocked.count : 0;
    return { ...this.totals, blockedRequests: this.totals.blockedRequests + live };
  }

  /** Whether the current task page supports exact snapshots (rehearsalSaveState/RestoreState). */
  async supportsSnapshot(): Promise<boolean> {
    const ep = this.live("supportsSnapshot");
    return this.guard(ep, "supportsSnapshot", () =>
      this.eval<boolean>(
        ep,
        `typeof window.rehearsalSaveState === "function" && typeof window.rehearsalRestoreState === "function"`,
      ),
    );
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const ep = await this.open(options);
    return this.observe(ep, undefined);
  }

  private async open(options: ResetOptions): Promise<Episode> {
    if (this.closed) throw new EnvironmentError(WEB_ERROR_CODES.closed, "reset on a closed web environment");
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError("env.reset_invalid", `invalid reset options: ${parsed.error.issues[0]?.message}`);
    }
    const task = this.suite.get(parsed.data.taskId);
    // The previous context closes while the next one opens; both are done when reset returns.
    const [handle] = await Promise.all([
      openEpisodePage({
        pool: this.pool,
        config: this.config,
        origin: this.server.origin,
        entryPath: this.suite.entryPath(task.id),
        seed: parsed.data.seed,
      }),
      this.endEpisode(),
    ]);
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
    if (ep.ended !== null && ep.last) {
      const observation = {
        ...ep.last,
        error: {
          code: "episode_ended",
          message: `the episode has ended (${ep.ended}); reset to start another`,
        },
      };
      return {
        observation,
        reward: 0,
        terminated: ep.ended !== "truncated",
        truncated: ep.ended === "truncated",
        info: {},
      };
    }
    let error: ActionError | null;
    const parsed = ActionSchema.safeParse(action);
    if (!parsed.success) {
      error = { code: "invalid_action", message: parsed.error.issues[0]?.message ?? "invalid action" };
    } else {
      const noise = ep.noise;
      const intercepted = noise
        ? await this.guard(ep, `${parsed.data.type} action`, () => noise.intercept(parsed.data))
        : undefined;
      if (intercepted !== undefined) {
        error = intercepted;
        if (noise && !noise.dialogOpen) ep.frozen = null;
      } else {
        const page = noise ? noise.activePage : ep.handle.page;
        error = await this.guard(ep, `${parsed.data.type} action`, () =>
          performAction(
            {
              page,
              viewport: noise ? noise.currentViewport : this.config.viewport,
              scrollAmountPx: this.config.scrollAmountPx,
              evaluate: (expression) =>
                page === ep.handle.page
                  ? this.eval(ep, expression)
                  : withTimeout(page.evaluate(expression), this.config.actionTimeoutMs, "a page evaluation"),
            },
            parsed.data,
          ),
        );
      }
    }
    ep.steps += 1;
    this.totals.steps += 1;
    const view = await this.view(ep, true);
    if (view.globals.done) ep.ended = "page";
    else if (!error && (action.type === "done" || action.type === "fail")) ep.ended = action.type;
    const limit = ep.task.maxSteps;
    let truncated = false;
    if (ep.ended === null && this.config.enforceMaxSteps && limit !== undefined && ep.steps >= limit) {
      ep.ended = "truncated";
      truncated = true;
    }
    const terminated = ep.ended !== null && !truncated;
    const score = scoreGlobals(view.globals, ep.task);
    const observation = await this.observe(ep, error ?? undefined, view);
    return {
      observation,
      reward: terminated ? score.reward : 0,
      terminated,
      truncated,
      info: {
        step: ep.steps,
        rawReward: view.globals.rawReward,
        wobDone: view.globals.done,
        reason: view.globals.reason,
        blockedRequests: ep.handle.blocked.count,
        ...(ep.handle.blocked.urls.length > 0 ? { blockedUrls: [...ep.handle.blocked.urls] } : {}),
        ...(error ? { actionError: error.code } : {}),
      },
    };
  }

  async evaluate(): Promise<VerifierResult> {
    const ep = this.episode;
    if (!ep) return { reward: 0, success: false, reason: "no episode: reset first", metrics: {} };
    const globals = ep.frozen
      ? ep.frozen.view.globals
      : await this.guard(ep, "evaluate", () => this.eval<PageGlobals>(ep, agentCall("globals")));
    const score = scoreGlobals(globals, ep.task);
    score.metrics.steps = ep.steps;
    score.metrics.blockedRequests = ep.handle.blocked.count;
    return score;
  }

  async fingerprint(): Promise<string> {
    return sha256Hex(canonicalJson(await this.fingerprintParts()));
  }

  /**
   * What `fingerprint()` hashes: the port-free URL, the full axtree, the focused element, a DOM dump
   * with live form values, the task globals (without the time-scaled reward) and whether the episode
   * ended. Useful to explain a replay mismatch.
   */
  async fingerprintParts(): Promise<Record<string, unknown>> {
    const ep = this.live("fingerprint");
    const noise = ep.noise;
    if (!noise?.used) return this.pageFingerprint(ep);
    if (ep.frozen) return { ...ep.frozen.fingerprint, noise: noise.save(ep.frozen.layer) };
    const parts = await this.pageFingerprint(ep);
    const layer = await this.readLayer(ep, "fingerprint");
    const tab = noise.onNoiseTab ? await this.guard(ep, "fingerprint", () => noise.tabView()) : null;
    return { ...parts, noise: noise.save(layer), ...(tab ? { tab } : {}) };
  }

  private async pageFingerprint(ep: Episode): Promise<Record<string, unknown>> {
    const f = await this.guard(ep, "fingerprint", () =>
      this.eval<{ href: string; axtree: string; focused: string; dom: string; globals: PageGlobals }>(
        ep,
        FINGERPRINT_EXPRESSION,
      ),
    );
    const { reward: _timeScaled, ...globals } = f.globals;
    return {
      url: this.relativeUrl(f.href),
      axtree: f.axtree,
      focused: f.focused,
      dom: f.dom,
      globals,
      ended: ep.ended !== null,
    };
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    const ep = this.live("snapshot");
    const saved = ep.frozen ? ep.frozen.saved : await this.guard(ep, "snapshot", () => this.savePage(ep));
    const url = this.relativeUrl(saved.href);
    if (!saved.supported || url !== this.suite.entryPath(ep.task.id)) {
      throw new EnvironmentError(
        WEB_ERROR_CODES.snapshotUnsupported,
        `task ${ep.task.id} cannot be snapshot at ${url}: the page lacks rehearsalSaveState/rehearsalRestoreState ` +
          "or has navigated away from its entry page. Use replay (reset + prefix) instead.",
      );
    }
    const state: SnapshotState = {
      url,
      page: saved.page ?? null,
      extra: saved.extra,
      steps: ep.steps,
      ended: ep.ended,
      blocked: ep.handle.blocked.count,
    };
    if (ep.noise?.used) {
      const layer = ep.frozen ? ep.frozen.layer : await this.readLayer(ep, "snapshot");
      state.noise = ep.noise.save(layer);
    }
    return {
      family: this.family,
      taskId: ep.task.id,
      seed: ep.seed,
      state: JSON.parse(JSON.stringify(state)),
    };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = EnvironmentSnapshotSchema.parse(snapshot);
    const parsed = SnapshotStateSchema.safeParse(snap.state);
    if (snap.family !== this.family || !parsed.success) {
      throw new UserError("env.snapshot_invalid", `not a web environment snapshot (family ${snap.family})`);
    }
    const ep = await this.open({ taskId: snap.taskId, seed: snap.seed });
    const s = parsed.data;
    const noiseState = s.noise;
    const noise = noiseState ? this.perturbations(ep) : null;
    await this.guard(ep, "restore", async () => {
      await this.eval(
        ep,
        `(() => { window.rehearsalRestoreState(${JSON.stringify(s.page)}); return true; })()`,
      );
      // The noise layer first: an in-flow host before <body> is part of the element paths restored next.
      if (noise && noiseState) await noise.restoreLayer(noiseState);
      await this.eval(ep, `(() => { window.__rh.restoreExtra(${JSON.stringify(s.extra)}); return true; })()`);
    });
    let view = await this.view(ep, true);
    if (noise && noiseState) {
      if (noiseState.dialog) await this.freeze(ep, view);
      await this.guard(ep, "restore", () => noise.restoreRest(noiseState));
      if (ep.frozen) view = ep.frozen.view;
    }
    ep.steps = s.steps;
    ep.ended = s.ended;
    ep.handle.blocked.count = s.blocked;
    return this.observe(ep, undefined, view);
  }

  async oracleAction(): Promise<Action | null> {
    const ep = this.live("oracleAction");
    if (ep.ended !== null || ep.frozen || ep.noise?.onNoiseTab) return null;
    return this.guard(ep, "oracleAction", async () => {
      const r = await this.eval<{ missing?: boolean; action?: unknown }>(ep, agentCall("oracle"));
      if (r.missing || r.action === null || r.action === undefined) return null;
      return translateOracleAction(r.action, (expression) => this.eval(ep, expression));
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
    return replayPrefix(this, { ...options, taskId, seed, prefix });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.endEpisode();
    await this.server.close();
    if (this.sharedPool) await this.pool.release();
  }

  // ---------------------------------------------------------------- perturbations (Perturbable)

  /**
   * Applies a perturbation now (the noise layer calls this after the agent's action, so the next
   * observation shows it). Returns a refusal when it cannot apply here (nothing changed then).
   */
  async applyPerturbation(event: PerturbationEvent): Promise<PerturbationRefusal | null> {
    const ep = this.live("applyPerturbation");
    const parsed = PerturbationEffectSchema.safeParse(event.effect);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UserError(
        "env.perturbation_invalid",
        `perturbation ${event.id}: ${issue?.path.join(".") || "effect"}: ${issue?.message}`,
      );
    }
    const effect = parsed.data;
    const noise = this.perturbations(ep);
    if (effect.kind === "native_dialog" && !ep.frozen) await this.freeze(ep, await this.view(ep, true));
    const target =
      effect.kind === "widget" && effect.widget.layout === "occluder" ? await this.targetElement(ep) : null;
    const reason = await this.guard(ep, "applyPerturbation", () => noise.apply(event.id, effect, target));
    if (reason !== null && effect.kind === "native_dialog") ep.frozen = null;
    return reason === null ? null : { id: event.id, reason };
  }

  async advancePerturbations(): Promise<boolean> {
    const ep = this.live("advancePerturbations");
    const noise = ep.noise;
    return noise?.used ? this.guard(ep, "advancePerturbations", () => noise.advance()) : false;
  }

  async perturbationStatus(): Promise<PerturbationStatus[]> {
    const ep = this.live("perturbationStatus");
    const noise = ep.noise;
    if (!noise) return [];
    const layer = ep.frozen ? ep.frozen.layerStatus : await this.readLayerStatus(ep, "perturbationStatus");
    return noise.status(layer);
  }

  async observeNow(): Promise<Observation> {
    const ep = this.live("observeNow");
    return this.observe(ep, undefined, await this.view(ep, true));
  }

  /** sha256 of everything the task's verifier can read (see page/agent.js `verifierState`). */
  async verifierDigest(): Promise<string> {
    const ep = this.live("verifierDigest");
    if (ep.frozen) return ep.frozen.verifier;
    return this.guard(ep, "verifierDigest", () => this.readVerifierDigest(ep));
  }

  private async readVerifierDigest(ep: Episode): Promise<string> {
    return sha256Hex(canonicalJson(await this.eval(ep, agentCall("verifierState"))));
  }

  private perturbations(ep: Episode): EpisodePerturbations {
    if (!ep.noise) {
      ep.noise = new EpisodePerturbations(ep, {
        evalTask: (expression) => this.eval(ep, expression),
        defaultViewport: this.config.viewport,
        timeoutMs: this.config.actionTimeoutMs,
      });
    }
    return ep.noise;
  }

  /** Reads what a native dialog will block: view, fingerprint, snapshot data, noise layer, verifier digest. */
  private async freeze(ep: Episode, view: PageView): Promise<void> {
    const fingerprint = await this.pageFingerprint(ep);
    const saved = await this.guard(ep, "freeze", () => this.savePage(ep));
    const layer = await this.readLayer(ep, "freeze");
    const layerStatus = await this.readLayerStatus(ep, "freeze");
    const verifier = await this.guard(ep, "freeze", () => this.readVerifierDigest(ep));
    const screenshot = this.config.observation.screenshot
      ? await this.guard(ep, "freeze", () =>
          ep.handle.page.screenshot({ type: "png", caret: "hide", timeout: this.config.actionTimeoutMs }),
        )
      : null;
    ep.frozen = { view, fingerprint, saved, layer, layerStatus, verifier, screenshot };
  }

  /** The page noise layer's state (`window.__rhNoise.save()`), null when no widget was ever added. */
  private readLayer(ep: Episode, operation: string): Promise<unknown> {
    if (!ep.noise?.layerInUse) return Promise.resolve(null);
    return this.guard(ep, operation, () => this.eval(ep, "window.__rhNoise.save()"));
  }

  private readLayerStatus(ep: Episode, operation: string): Promise<PerturbationStatus[]> {
    if (!ep.noise?.layerInUse) return Promise.resolve([]);
    return this.guard(ep, operation, () => this.eval<PerturbationStatus[]>(ep, "window.__rhNoise.status()"));
  }

  private savePage(
    ep: Episode,
  ): Promise<{ supported: boolean; href: string; page?: unknown; extra?: unknown }> {
    return this.eval(
      ep,
      `(() => {
        if (typeof window.rehearsalSaveState !== "function" || typeof window.rehearsalRestoreState !== "function")
          return { supported: false, href: location.href };
        return { supported: true, href: location.href, page: window.rehearsalSaveState(), extra: window.__rh.saveExtra() };
      })()`,
    );
  }

  /**
   * The element a targeted perturbation aims at: the one the task's oracle would act on next, else the
   * focused element, else the first visible interactive one.
   */
  private async targetElement(ep: Episode): Promise<string | null> {
    const oracle = await this.oracleAction().catch(() => null);
    const fromOracle =
      oracle && "elementId" in oracle && typeof oracle.elementId === "string" ? oracle.elementId : undefined;
    if (fromOracle !== undefined) return fromOracle;
    const view = await this.view(ep);
    const m = /^\s*\[(\d+)\]/m.exec(view.focused || view.axtree);
    return m?.[1] ?? null;
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
    if (ep.handle.dead) throw browserCrashed(operation);
    return ep;
  }

  private async endEpisode(): Promise<void> {
    const ep = this.episode;
    this.episode = null;
    if (!ep) return;
    await ep.noise?.closeAll();
    this.totals.blockedRequests += ep.handle.blocked.count;
    await ep.handle.close();
  }

  private relativeUrl(href: string): string {
    return href.startsWith(this.server.origin) ? href.slice(this.server.origin.length) || "/" : href;
  }

  private eval<T>(ep: Episode, expression: string): Promise<T> {
    return evalIn<T>(ep, expression, this.config.actionTimeoutMs);
  }

  /** Runs a browser operation; a dead browser or page becomes `env.browser_crashed`. */
  private guard<T>(ep: Episode, operation: string, fn: () => Promise<T>): Promise<T> {
    return guardIn(ep, operation, fn, () => {
      this.totals.crashes += 1;
    });
  }

  private async view(ep: Episode, settle = false): Promise<PageView> {
    if (ep.frozen) return ep.frozen.view;
    const view = await this.guard(ep, "observing", () => readView(ep, this.config, settle));
    const noise = ep.noise;
    if (!noise?.onNoiseTab) return view;
    // A noise tab has the focus: the agent sees that tab; the task's globals still come from its page.
    const tab = await this.guard(ep, "observing", () => noise.tabView());
    return { ...view, axtree: tab.axtree, focused: tab.focused, title: tab.title, href: tab.href };
  }

  private async observe(ep: Episode, error: ActionError | undefined, known?: PageView): Promise<Observation> {
    const view = known ?? (await this.view(ep));
    const noise = ep.noise;
    const page = noise ? noise.activePage : ep.handle.page;
    // A page blocked by a native dialog cannot be captured; its pixels are those before the dialog.
    const screenshot = !this.config.observation.screenshot
      ? undefined
      : ep.frozen
        ? (ep.frozen.screenshot ?? undefined)
        : await this.guard(ep, "screenshot", () =>
            page.screenshot({ type: "png", caret: "hide", timeout: this.config.actionTimeoutMs }),
          );
    const observation = buildObservation({
      view,
      url: this.relativeUrl(view.href),
      screenshot,
      config: this.config,
      step: ep.steps,
      blockedRequests: ep.handle.blocked.count,
      dialogs: ep.handle.dialogs,
      error,
    });
    if (noise?.used) {
      const extra = noise.describe();
      Object.assign(observation.data as Record<string, unknown>, extra.data);
      if (observation.screenshot) {
        observation.screenshot.width = noise.currentViewport.width;
        observation.screenshot.height = noise.currentViewport.height;
      }
      if (extra.lines.length > 0) observation.text = `${observation.text}\n${extra.lines.join("\n")}`;
    }
    ep.last = observation;
    return observation;
  }
}
