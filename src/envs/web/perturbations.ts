import type { Dialog, Page } from "playwright-core";
import type { Action, ActionError, PerturbationEffectParsed, PerturbationStatus } from "../../core/index.ts";
import type { Episode } from "./episode.ts";
import { type DialogState, type NoiseHost, type NoiseState, NoiseStateSchema } from "./noise-state.ts";
import { NoiseTabs, newTab, TAB_KEY, type TabView } from "./noise-tabs.ts";
import { withTimeout } from "./web-errors.ts";

/**
 * The browser side of perturbations for one episode: native dialogs held open through Playwright's
 * dialog events, noise tabs the layer opens and types into (noise-tabs.ts), a temporarily shrunk
 * viewport and scroll jumps. Page widgets live in page/noise.js (`window.__rhNoise`); this class
 * drives it. All of it is plain data (`save`/`restore`, noise-state.ts) so that snapshots and replays
 * reproduce the perturbed state.
 */

type EffectOf<K> = Extract<PerturbationEffectParsed, { kind: K }>;

/** A native dialog about to open: nothing typed into it yet. */
function newDialog(id: string, e: EffectOf<"native_dialog">): DialogState {
  return { id, type: e.dialog, message: e.message, defaultValue: e.defaultValue ?? null, typed: null };
}

export class EpisodePerturbations {
  private layerUsed = false;
  private dialog: (DialogState & { handle: Dialog | null }) | null = null;
  private readonly tabs: NoiseTabs;
  private viewport: NoiseState["viewport"] = null;
  private readonly ended: Array<{ id: string; endedBy: string }> = [];

  constructor(
    private readonly ep: Episode,
    private readonly host: NoiseHost,
  ) {
    this.tabs = new NoiseTabs(ep, host, () => this.currentViewport);
  }

  /** Whether anything was ever applied (clean episodes skip every per-step call). */
  get used(): boolean {
    return (
      this.layerUsed ||
      this.dialog !== null ||
      this.tabs.used ||
      this.viewport !== null ||
      this.ended.length > 0
    );
  }

  /** A native dialog is open: the page is blocked until it is accepted or dismissed. */
  get dialogOpen(): boolean {
    return this.dialog !== null;
  }

  /** The page the agent acts on and sees: the task page, or a noise tab that has the focus. */
  get activePage(): Page {
    return this.tabs.activePage ?? this.ep.handle.page;
  }

  get onNoiseTab(): boolean {
    return this.tabs.onNoiseTab;
  }

  get currentViewport(): { width: number; height: number } {
    return this.viewport
      ? { width: this.viewport.width, height: this.viewport.height }
      : this.host.defaultViewport;
  }

  // ------------------------------------------------------------------ applying

  /** Applies one effect; returns a reason when it cannot apply here (nothing changed then). */
  async apply(id: string, effect: PerturbationEffectParsed, target: string | null): Promise<string | null> {
    if (this.dialog) return "a native dialog is already open";
    switch (effect.kind) {
      case "widget": {
        let rect: unknown = null;
        if (effect.widget.layout === "occluder") {
          if (target === null) return "no visible target element to occlude";
          rect = await this.host.evalTask(`window.__rhNoise.rectOf(${JSON.stringify(target)})`);
          if (rect === null) return `target element ${target} is not visible`;
        }
        await this.host.evalTask(
          `window.__rhNoise.add(${JSON.stringify(id)}, ${JSON.stringify(effect.widget)}, ${JSON.stringify(rect)})`,
        );
        this.layerUsed = true;
        return null;
      }
      case "native_dialog":
        await this.openDialog(newDialog(id, effect));
        return null;
      case "tab":
        await this.tabs.open(newTab(id, effect));
        return null;
      case "scroll_jump":
        await this.host.evalTask(`(() => { window.scrollBy(0, ${effect.dy}); return true; })()`);
        this.ended.push({ id, endedBy: "instant" });
        return null;
      case "viewport": {
        if (this.viewport) return "the viewport is already changed";
        this.viewport = { id, width: effect.width, height: effect.height, left: effect.restoreAfter };
        await this.ep.handle.page.setViewportSize({ width: effect.width, height: effect.height });
        return null;
      }
    }
  }

  private async openDialog(state: DialogState): Promise<void> {
    const opened = new Promise<Dialog>((resolve) => {
      this.ep.handle.holdDialog = resolve;
    });
    const call =
      state.type === "prompt"
        ? `prompt(${JSON.stringify(state.message)}, ${JSON.stringify(state.defaultValue ?? "")})`
        : `${state.type}(${JSON.stringify(state.message)})`;
    await this.host.evalTask(
      `(() => { setTimeout(() => { window.__rhDialogAnswer = ${call}; }, 0); return true; })()`,
    );
    const handle = await withTimeout(opened, this.host.timeoutMs, "opening a native dialog");
    this.dialog = { ...state, handle };
  }

  // ------------------------------------------------------------------ per step

  /**
   * One agent step passed: widgets tick, tabs type on, a shrunk viewport counts down. Returns whether
   * anything the agent can see changed (then the observation must be read again).
   */
  async advance(): Promise<boolean> {
    if (this.dialog) return false;
    let changed = this.layerUsed && (await this.host.evalTask<boolean>("window.__rhNoise.tick()"));
    if (await this.tabs.advance()) changed = true;
    if (this.viewport) {
      this.viewport.left -= 1;
      if (this.viewport.left <= 0) {
        this.ended.push({ id: this.viewport.id, endedBy: "restored" });
        this.viewport = null;
        await this.ep.handle.page.setViewportSize(this.host.defaultViewport);
        changed = true;
      }
    }
    return changed;
  }

  /**
   * Handles an action that the perturbations take instead of the page: keys for a native dialog, tab
   * switching keys, Escape for a noise widget. Returns undefined when the page should get the action.
   */
  async intercept(action: Action): Promise<ActionError | null | undefined> {
    if (this.dialog) return this.dialogAction(action);
    if (action.type !== "key") return undefined;
    if (this.tabs.anyOpen) {
      const m = TAB_KEY.exec(action.keys.replace(/\s+/g, ""));
      if (m) return this.tabs.key(Boolean(m[1]), (m[2] as string).toLowerCase());
    }
    if (this.layerUsed && !this.tabs.onNoiseTab && /^(escape|esc)$/i.test(action.keys.trim())) {
      const consumed = await this.host.evalTask<boolean>("window.__rhNoise.escape()");
      if (consumed) return null;
    }
    return undefined;
  }

  private async dialogAction(action: Action): Promise<ActionError | null> {
    const d = this.dialog as DialogState & { handle: Dialog | null };
    const how = (msg: string): ActionError => ({
      code: "native_dialog_open",
      message: `a browser ${d.type} dialog is open (${msg}): press Enter to accept or Escape to dismiss${
        d.type === "prompt" ? "; type text to answer it" : ""
      }`,
    });
    if (action.type === "type" && d.type === "prompt") {
      d.typed = action.text;
      return null;
    }
    if (action.type !== "key") return how(`${action.type} cannot reach the page`);
    const key = action.keys.trim().toLowerCase();
    if (key !== "enter" && key !== "escape" && key !== "esc") return how(`key ${action.keys}`);
    const accept = key === "enter";
    const handle = d.handle;
    this.dialog = null;
    this.ep.handle.holdDialog = null;
    this.ended.push({ id: d.id, endedBy: accept ? "accept" : "dismiss" });
    if (handle) {
      if (accept) await handle.accept(d.type === "prompt" ? (d.typed ?? d.defaultValue ?? "") : undefined);
      else await handle.dismiss();
    }
    return null;
  }

  // ------------------------------------------------------------------ reading

  status(layer: ReadonlyArray<PerturbationStatus>): PerturbationStatus[] {
    const out: PerturbationStatus[] = [...layer];
    for (const e of this.ended) out.push({ id: e.id, active: false, endedBy: e.endedBy });
    if (this.dialog) out.push({ id: this.dialog.id, active: true });
    out.push(...this.tabs.status());
    if (this.viewport) out.push({ id: this.viewport.id, active: true });
    return out;
  }

  /** Observation additions: the open dialog and the tab strip, as data and as text lines. */
  describe(): { data: Record<string, unknown>; lines: string[] } {
    const data: Record<string, unknown> = {};
    const lines: string[] = [];
    if (this.dialog) {
      data.nativeDialog = {
        type: this.dialog.type,
        message: this.dialog.message,
        ...(this.dialog.type === "prompt"
          ? { value: this.dialog.typed ?? this.dialog.defaultValue ?? "" }
          : {}),
      };
      lines.push(
        `Browser dialog (${this.dialog.type}): ${JSON.stringify(this.dialog.message)} — press Enter to accept or Escape to dismiss`,
      );
    }
    const strip = this.tabs.describe();
    if (strip) {
      data.tabs = strip.tabs;
      lines.push(strip.line);
    }
    if (this.viewport) data.viewport = { width: this.viewport.width, height: this.viewport.height };
    return { data, lines };
  }

  /** Whether page widgets were ever added (only then does the page hold noise-layer state). */
  get layerInUse(): boolean {
    return this.layerUsed;
  }

  /**
   * The perturbation state: what snapshots carry and fingerprints hash. `layer` comes from
   * `window.__rhNoise.save()` (read before a dialog opened), null when no widget was ever added.
   */
  save(layer: unknown): NoiseState {
    return NoiseStateSchema.parse(
      JSON.parse(
        JSON.stringify({
          layer: this.layerUsed ? layer : null,
          dialog: this.dialog ? { ...this.dialog, handle: undefined } : null,
          ...this.tabs.save(),
          viewport: this.viewport,
          ended: this.ended,
        }),
      ),
    );
  }

  /** `save(layer)` plus what the agent did inside the noise tabs: what a snapshot carries. */
  async saveForSnapshot(layer: unknown): Promise<NoiseState> {
    const state = this.save(layer);
    if (state.tabs.length > 0) state.tabPages = await this.tabs.savePages();
    return state;
  }

  /** Re-creates a saved perturbation state in a freshly reset episode (page state already restored). */
  async restoreLayer(state: NoiseState): Promise<void> {
    if (state.layer !== null) {
      await this.host.evalTask(`window.__rhNoise.restore(${JSON.stringify(state.layer)})`);
      this.layerUsed = true;
    }
  }

  /**
   * Re-opens the saved noise tabs (with the focus where it was) and the shrunk viewport, after the
   * layer and the page's element state: everything the restored view shows but a native dialog.
   */
  async restoreTabsAndViewport(state: NoiseState): Promise<void> {
    await this.tabs.restore(state);
    this.ended.push(...state.ended);
    if (state.viewport) {
      this.viewport = { ...state.viewport };
      await this.ep.handle.page.setViewportSize({
        width: state.viewport.width,
        height: state.viewport.height,
      });
    }
  }

  /** Re-opens a saved native dialog (last: it blocks the task page). */
  async restoreDialog(state: NoiseState): Promise<void> {
    if (state.dialog) await this.openDialog(state.dialog);
  }

  /** The noise tab's view parts (axtree, focus, URL, title) when it has the focus. */
  tabView(): Promise<TabView> {
    return this.tabs.view();
  }

  /** Noise tabs open now (pages of the episode's context besides the task page). */
  get openTabs(): number {
    return this.tabs.save().tabs.filter((t) => t.endedBy !== "closed").length;
  }

  /**
   * Takes every perturbation out of the live task page, leaving it as a fresh reset has it (an
   * in-page restore then re-creates a snapshot's): the dialog dismissed, the noise tabs closed, the
   * page layer emptied with its hosts removed, the viewport back to the default.
   */
  async clear(): Promise<void> {
    await this.closeAll();
    this.dialog = null;
    const page = this.ep.handle.page;
    for (const p of this.ep.handle.context.pages()) if (p !== page) await p.close();
    if (this.layerUsed) await this.host.evalTask("window.__rhNoise.clear()");
    if (this.viewport) await page.setViewportSize(this.host.defaultViewport);
  }

  async closeAll(): Promise<void> {
    this.ep.handle.holdDialog = null;
    const handle = this.dialog?.handle;
    if (handle)
      await withTimeout(handle.dismiss(), this.host.timeoutMs, "dismissing a dialog").catch(() => {});
  }
}
