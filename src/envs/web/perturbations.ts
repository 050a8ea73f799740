import type { Dialog, Page } from "playwright-core";
import { z } from "zod";
import type { Action, ActionError, PerturbationEffectParsed, PerturbationStatus } from "../../core/index.ts";
import type { Episode } from "./episode.ts";
import { PAGE_AGENT_SOURCE } from "./page-agent.ts";
import { withTimeout } from "./web-errors.ts";

/**
 * The browser side of perturbations for one episode: native dialogs held open through Playwright's
 * dialog events, noise tabs the layer opens and types into, a temporarily shrunk viewport and scroll
 * jumps. Page widgets live in page/noise.js (`window.__rhNoise`); this class drives it. All of it is
 * plain data (`save`/`restore`) so that snapshots and replays reproduce the perturbed state.
 */

const TabStateSchema = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  typed: z.number().int().nonnegative(),
  charsPerStep: z.number().int().positive(),
  returnAfter: z.number().int().positive().nullable(),
  age: z.number().int().nonnegative(),
  focus: z.boolean(),
  endedBy: z.string().nullable(),
});
type TabState = z.infer<typeof TabStateSchema>;

const DialogStateSchema = z.object({
  id: z.string(),
  type: z.enum(["alert", "confirm", "prompt"]),
  message: z.string(),
  defaultValue: z.string().nullable(),
  typed: z.string().nullable(),
});
type DialogState = z.infer<typeof DialogStateSchema>;

export const NoiseStateSchema = z.object({
  /** page/noise.js state (widgets), null when no widget was ever added. */
  layer: z.unknown().nullable(),
  dialog: DialogStateSchema.nullable(),
  tabs: z.array(TabStateSchema),
  /** 0: the task page; i: tabs[i - 1]. */
  active: z.number().int().nonnegative(),
  viewport: z
    .object({ id: z.string(), width: z.number(), height: z.number(), left: z.number().int() })
    .nullable(),
  /** Perturbations that end as they happen (scroll jumps), and ended dialogs / viewports. */
  ended: z.array(z.object({ id: z.string(), endedBy: z.string() })),
});
export type NoiseState = z.infer<typeof NoiseStateSchema>;

/** What the environment lends the layer: guarded evaluation in the task page, its viewport. */
export interface NoiseHost {
  evalTask<T>(expression: string): Promise<T>;
  defaultViewport: { width: number; height: number };
  timeoutMs: number;
}

/** Keys that switch tabs while a noise tab is open: Control+1…9, Control+Tab, Control+Shift+Tab, Control+W. */
const TAB_KEY = /^(?:control|ctrl|meta|cmd)\+(?:(shift)\+)?(tab|w|[1-9])$/i;

type EffectOf<K> = Extract<PerturbationEffectParsed, { kind: K }>;

/** A native dialog about to open: nothing typed into it yet. */
function newDialog(id: string, e: EffectOf<"native_dialog">): DialogState {
  return { id, type: e.dialog, message: e.message, defaultValue: e.defaultValue ?? null, typed: null };
}

/** A noise tab about to open with its first characters typed; a background tab ends at once. */
function newTab(id: string, e: EffectOf<"tab">): TabState {
  const typed = Math.min(e.text.length, e.charsPerStep);
  const returnAfter = e.focus ? (e.returnAfter ?? null) : null;
  const common = { id, title: e.title, text: e.text, typed, charsPerStep: e.charsPerStep, returnAfter };
  return { ...common, age: 0, focus: e.focus, endedBy: e.focus ? null : "background" };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

export class EpisodePerturbations {
  private layerUsed = false;
  private dialog: (DialogState & { handle: Dialog | null }) | null = null;
  private readonly tabs: Array<TabState & { page: Page }> = [];
  private active = 0;
  private viewport: NoiseState["viewport"] = null;
  private readonly ended: Array<{ id: string; endedBy: string }> = [];

  constructor(
    private readonly ep: Episode,
    private readonly host: NoiseHost,
  ) {}

  /** Whether anything was ever applied (clean episodes skip every per-step call). */
  get used(): boolean {
    return (
      this.layerUsed ||
      this.dialog !== null ||
      this.tabs.length > 0 ||
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
    return this.active === 0 ? this.ep.handle.page : (this.tabs[this.active - 1] as { page: Page }).page;
  }

  get onNoiseTab(): boolean {
    return this.active !== 0;
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
        await this.openTab(newTab(id, effect));
        if (effect.focus) this.active = this.tabs.length;
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

  private async openTab(state: TabState): Promise<void> {
    this.ep.handle.allowPages += 1;
    const page = await this.ep.handle.context.newPage();
    await page.setViewportSize(this.currentViewport);
    await page.setContent(
      `<!doctype html><html><head><title>${escapeHtml(state.title)}</title></head><body>` +
        `<h1>${escapeHtml(state.title)}</h1><textarea id="note" aria-label="Note" rows="8" cols="60"></textarea></body></html>`,
    );
    await page.evaluate(`(() => { if (!window.__rh) { ${PAGE_AGENT_SOURCE} } return true; })()`);
    this.tabs.push({ ...state, page });
    await this.writeTab(this.tabs.length - 1);
  }

  private async writeTab(index: number): Promise<void> {
    const tab = this.tabs[index];
    if (!tab) return;
    await withTimeout(
      tab.page.evaluate(
        `(() => { const t = document.getElementById("note"); t.value = ${JSON.stringify(tab.text.slice(0, tab.typed))}; return true; })()`,
      ),
      this.host.timeoutMs,
      "typing into a noise tab",
    );
  }

  // ------------------------------------------------------------------ per step

  /**
   * One agent step passed: widgets tick, tabs type on, a shrunk viewport counts down. Returns whether
   * anything the agent can see changed (then the observation must be read again).
   */
  async advance(): Promise<boolean> {
    if (this.dialog) return false;
    let changed = this.layerUsed && (await this.host.evalTask<boolean>("window.__rhNoise.tick()"));
    for (let i = 0; i < this.tabs.length; i++) {
      const tab = this.tabs[i] as TabState & { page: Page };
      if (tab.endedBy === "closed") continue;
      tab.age += 1;
      if (tab.typed < tab.text.length) {
        tab.typed = Math.min(tab.text.length, tab.typed + tab.charsPerStep);
        await this.writeTab(i);
        changed = true;
      }
      if (this.active === i + 1 && tab.returnAfter !== null && tab.age >= tab.returnAfter) {
        this.active = 0;
        tab.endedBy = "auto";
        changed = true;
      }
    }
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
    if (this.tabs.some((t) => t.endedBy !== "closed")) {
      const m = TAB_KEY.exec(action.keys.replace(/\s+/g, ""));
      if (m) return this.tabKey(Boolean(m[1]), (m[2] as string).toLowerCase());
    }
    if (this.layerUsed && this.active === 0 && /^(escape|esc)$/i.test(action.keys.trim())) {
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

  private async tabKey(shift: boolean, key: string): Promise<ActionError | null> {
    const open = [0, ...this.tabs.flatMap((t, i) => (t.endedBy === "closed" ? [] : [i + 1]))];
    const at = Math.max(0, open.indexOf(this.active));
    let next = this.active;
    if (key === "tab") next = open[(at + (shift ? open.length - 1 : 1)) % open.length] as number;
    else if (key === "w") {
      if (this.active === 0)
        return { code: "tab_not_closable", message: "the task's own tab cannot be closed" };
      const tab = this.tabs[this.active - 1] as TabState & { page: Page };
      tab.endedBy = "closed";
      await tab.page.close().catch(() => {});
      next = 0;
    } else {
      const n = Number(key);
      next = n === 9 ? (open[open.length - 1] as number) : (open[n - 1] ?? this.active);
    }
    if (next === 0 && this.active !== 0) {
      const tab = this.tabs[this.active - 1] as TabState;
      if (tab.endedBy === null) tab.endedBy = key === "w" ? "closed" : "refocus";
    }
    this.active = next;
    return null;
  }

  // ------------------------------------------------------------------ reading

  status(layer: ReadonlyArray<PerturbationStatus>): PerturbationStatus[] {
    const out: PerturbationStatus[] = [...layer];
    for (const e of this.ended) out.push({ id: e.id, active: false, endedBy: e.endedBy });
    if (this.dialog) out.push({ id: this.dialog.id, active: true });
    this.tabs.forEach((t, i) => {
      const stealing = this.active === i + 1;
      out.push({ id: t.id, active: stealing, ...(t.endedBy ? { endedBy: t.endedBy } : {}) });
    });
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
    const open = this.tabs.flatMap((t, i) => (t.endedBy === "closed" ? [] : [{ t, index: i + 1 }]));
    if (open.length > 0) {
      const tabs = [
        { index: 1, title: "Task", active: this.active === 0 },
        ...open.map((o, j) => ({ index: j + 2, title: o.t.title, active: this.active === o.index })),
      ];
      data.tabs = tabs;
      lines.push(
        `Tabs: ${tabs.map((t) => `${t.index} ${JSON.stringify(t.title)}${t.active ? " (active)" : ""}`).join(" · ")} — switch with Control+1…Control+9`,
      );
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
          tabs: this.tabs.map(({ page: _p, ...t }) => t),
          active: this.active,
          viewport: this.viewport,
          ended: this.ended,
        }),
      ),
    );
  }

  /** Re-creates a saved perturbation state in a freshly reset episode (page state already restored). */
  async restoreLayer(state: NoiseState): Promise<void> {
    if (state.layer !== null) {
      await this.host.evalTask(`window.__rhNoise.restore(${JSON.stringify(state.layer)})`);
      this.layerUsed = true;
    }
  }

  async restoreRest(state: NoiseState): Promise<void> {
    for (const t of state.tabs) await this.openTab(t);
    for (let i = 0; i < state.tabs.length; i++) {
      const t = state.tabs[i] as TabState;
      if (t.endedBy === "closed") await (this.tabs[i] as { page: Page }).page.close().catch(() => {});
    }
    this.active = state.active;
    this.ended.push(...state.ended);
    if (state.viewport) {
      this.viewport = { ...state.viewport };
      await this.ep.handle.page.setViewportSize({
        width: state.viewport.width,
        height: state.viewport.height,
      });
    }
    if (state.dialog) await this.openDialog(state.dialog);
  }

  /** The noise tab's view parts (axtree, focus, URL, title) when it has the focus. */
  async tabView(): Promise<{ axtree: string; focused: string; title: string; href: string }> {
    const page = this.activePage;
    return withTimeout(
      page.evaluate(
        `(async () => { await window.__rh.settle(); return { axtree: window.__rh.axtree(), focused: window.__rh.focused(), title: document.title, href: "noise-tab:" + document.title }; })()`,
      ) as Promise<{ axtree: string; focused: string; title: string; href: string }>,
      this.host.timeoutMs,
      "reading a noise tab",
    );
  }

  async closeAll(): Promise<void> {
    this.ep.handle.holdDialog = null;
    const handle = this.dialog?.handle;
    if (handle)
      await withTimeout(handle.dismiss(), this.host.timeoutMs, "dismissing a dialog").catch(() => {});
  }
}
