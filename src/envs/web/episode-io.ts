import {
  type Action,
  type ActionError,
  canonicalJson,
  type Observation,
  type PerturbationStatus,
  sha256Hex,
} from "../../core/index.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import { type Episode, evalIn, guardIn, type PagePrint, readView } from "./episode.ts";
import { buildObservation } from "./observe.ts";
import { agentCall, FINGERPRINT_EXPRESSION, type PageView } from "./page-agent.ts";
import { withTimeout } from "./web-errors.ts";

/** What `savePage` reads: whether the page supports exact snapshots, its URL and saved state. */
export interface SavedPage {
  supported: boolean;
  href: string;
  page?: unknown;
  extra?: unknown;
}

/** Extra time an action may take beyond one browser operation: a wait, typing text, two frames. */
function actionAllowanceMs(action: Action): number {
  if (action.type === "wait") return action.ms;
  if (action.type === "type") return action.text.length * 20;
  return 0;
}

/**
 * Everything the web environment reads from and does to one episode's page, each under the
 * watchdog deadline (`guard`): evaluation, the view, the observation, the fingerprint, the saved
 * page state, the noise layer's state and the verifier digest. Shared by the environment and its
 * perturbable half (web-perturbable.ts).
 */
export class EpisodeIO {
  /**
   * Whether views read the fingerprint's DOM dump too (see viewExpression): set once this
   * environment was asked for a fingerprint (web-snapshot.ts `fingerprintPartsOf`: fingerprint,
   * snapshot, restore). Before, nothing needs the dump after a view, and a fingerprint reads it fresh.
   */
  printWithView = false;

  constructor(
    readonly config: WebEnvironmentConfig,
    private readonly origin: string,
    private readonly onCrash: () => void,
  ) {}

  /** The deadline of one guarded operation: two browser operations plus the settle waits. */
  get deadlineMs(): number {
    return this.config.actionTimeoutMs * 2 + this.config.settle.maxMs + this.config.settleMs;
  }

  /** The deadline of an action (a wait or a long text gets its own time on top). */
  actionDeadlineMs(action: Action): number {
    return this.deadlineMs + actionAllowanceMs(action);
  }

  eval<T>(ep: Episode, expression: string): Promise<T> {
    return evalIn<T>(ep, expression, this.config.actionTimeoutMs);
  }

  /**
   * Runs a browser operation under the deadline; a dead browser or page becomes
   * `env.browser_crashed`, a page stuck in a script `env.page_unresponsive` (see guardIn).
   */
  guard<T>(ep: Episode, operation: string, fn: () => Promise<T>, deadlineMs = this.deadlineMs): Promise<T> {
    return guardIn(ep, operation, fn, this.onCrash, deadlineMs);
  }

  relativeUrl(href: string): string {
    return href.startsWith(this.origin) ? href.slice(this.origin.length) || "/" : href;
  }

  async view(ep: Episode, settle = false): Promise<PageView> {
    if (ep.frozen) return ep.frozen.view;
    const view = await this.guard(ep, "observing", () =>
      readView(ep, this.config, settle, this.printWithView),
    );
    ep.printed =
      view.dom === undefined
        ? null
        : {
            href: view.href,
            axtree: view.axtree,
            focused: view.focused,
            dom: view.dom,
            globals: view.globals,
          };
    const noise = ep.noise;
    if (!noise?.onNoiseTab) return view;
    // A noise tab has the focus: the agent sees that tab; the task's globals still come from its page.
    const tab = await this.guard(ep, "observing", () => noise.tabView());
    return { ...view, axtree: tab.axtree, focused: tab.focused, title: tab.title, href: tab.href };
  }

  /** A PNG of the page the agent sees (the task page, or a noise tab that has the focus), or of `page`. */
  screenshot(ep: Episode, operation: string, page = ep.noise ? ep.noise.activePage : ep.handle.page) {
    const { actionTimeoutMs } = this.config;
    return this.guard(ep, operation, () =>
      page === ep.handle.page
        ? withTimeout(ep.handle.screenshot(), actionTimeoutMs, "a screenshot")
        : page.screenshot({ type: "png", caret: "hide", timeout: actionTimeoutMs }),
    );
  }

  async observe(ep: Episode, error: ActionError | undefined, known?: PageView): Promise<Observation> {
    const view = known ?? (await this.view(ep));
    const noise = ep.noise;
    // A page blocked by a native dialog cannot be captured; its pixels are those before the dialog.
    const screenshot = !this.config.observation.screenshot
      ? undefined
      : ep.frozen
        ? (ep.frozen.screenshot ?? undefined)
        : await this.screenshot(ep, "screenshot");
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

  /** The page part of the state fingerprint: as read with the latest view when still valid (`ep.printed`). */
  async pageFingerprint(ep: Episode): Promise<Record<string, unknown>> {
    const f =
      ep.printed ??
      (await this.guard(ep, "fingerprint", () => this.eval<PagePrint>(ep, FINGERPRINT_EXPRESSION)));
    if (!ep.frozen) ep.printed = f;
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

  savePage(ep: Episode): Promise<SavedPage> {
    return this.eval(
      ep,
      `(() => {
        if (typeof window.rehearsalSaveState !== "function" || typeof window.rehearsalRestoreState !== "function")
          return { supported: false, href: location.href };
        return { supported: true, href: location.href, page: window.rehearsalSaveState(), extra: window.__rh.saveExtra() };
      })()`,
    );
  }

  /** The page noise layer's state (`window.__rhNoise.save()`), null when no widget was ever added. */
  readLayer(ep: Episode, operation: string): Promise<unknown> {
    if (!ep.noise?.layerInUse) return Promise.resolve(null);
    return this.guard(ep, operation, () => this.eval(ep, "window.__rhNoise.save()"));
  }

  readLayerStatus(ep: Episode, operation: string): Promise<PerturbationStatus[]> {
    if (!ep.noise?.layerInUse) return Promise.resolve([]);
    return this.guard(ep, operation, () => this.eval<PerturbationStatus[]>(ep, "window.__rhNoise.status()"));
  }

  /** sha256 of everything the task's verifier can read (see page/agent.js `verifierState`). */
  async readVerifierDigest(ep: Episode): Promise<string> {
    return sha256Hex(canonicalJson(await this.eval(ep, agentCall("verifierState"))));
  }

  /** Reads what a native dialog will block: view, fingerprint, snapshot data, noise layer, verifier digest. */
  async freeze(ep: Episode, view: PageView): Promise<void> {
    const fingerprint = await this.pageFingerprint(ep);
    const saved = await this.guard(ep, "freeze", () => this.savePage(ep));
    const layer = await this.readLayer(ep, "freeze");
    const layerStatus = await this.readLayerStatus(ep, "freeze");
    const verifier = await this.guard(ep, "freeze", () => this.readVerifierDigest(ep));
    const screenshot = this.config.observation.screenshot
      ? await this.screenshot(ep, "freeze", ep.handle.page)
      : null;
    ep.frozen = { view, fingerprint, saved, layer, layerStatus, verifier, screenshot };
  }
}
