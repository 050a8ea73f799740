import type { Page } from "playwright-core";
import type { ActionError, PerturbationEffectParsed, PerturbationStatus } from "../../core/index.ts";
import type { Episode } from "./episode.ts";
import type { NoiseHost, NoiseState, TabState } from "./noise-state.ts";
import { PAGE_AGENT_SOURCE } from "./page-agent.ts";
import { withTimeout } from "./web-errors.ts";

/** Keys that switch tabs while a noise tab is open: Control+1…9, Control+Tab, Control+Shift+Tab, Control+W. */
export const TAB_KEY = /^(?:control|ctrl|meta|cmd)\+(?:(shift)\+)?(tab|w|[1-9])$/i;

/** A noise tab about to open with its first characters typed; a background tab ends at once. */
export function newTab(id: string, e: Extract<PerturbationEffectParsed, { kind: "tab" }>): TabState {
  const typed = Math.min(e.text.length, e.charsPerStep);
  const returnAfter = e.focus ? (e.returnAfter ?? null) : null;
  const common = { id, title: e.title, text: e.text, typed, charsPerStep: e.charsPerStep, returnAfter };
  return { ...common, age: 0, focus: e.focus, endedBy: e.focus ? null : "background" };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

type LiveTab = TabState & { page: Page };

/** What a noise tab's view adds to the task page's: its axtree, focus, title and URL. */
export interface TabView {
  axtree: string;
  focused: string;
  title: string;
  href: string;
}

/**
 * The noise tabs of one episode: pages the layer opens in the episode's context and types into, the
 * tab that has the focus (the agent sees and acts on it), tab-switching keys, and their plain-data
 * state for snapshots (with what the agent did inside each tab) and fingerprints.
 */
export class NoiseTabs {
  private readonly tabs: LiveTab[] = [];
  /** 0: the task page; i: tabs[i - 1]. */
  private active = 0;

  constructor(
    private readonly ep: Episode,
    private readonly host: NoiseHost,
    /** The viewport a new tab opens with (the task page's current one). */
    private readonly viewport: () => { width: number; height: number },
  ) {}

  get used(): boolean {
    return this.tabs.length > 0;
  }

  get onNoiseTab(): boolean {
    return this.active !== 0;
  }

  /** The noise tab that has the focus, null while the task page has it. */
  get activePage(): Page | null {
    return this.active === 0 ? null : (this.tabs[this.active - 1] as LiveTab).page;
  }

  /** Whether a tab-switching key means something now (some noise tab is still open). */
  get anyOpen(): boolean {
    return this.tabs.some((t) => t.endedBy !== "closed");
  }

  /** Opens a tab; a focused one takes the focus. */
  async open(state: TabState): Promise<void> {
    await this.openPage(state);
    if (state.focus) this.active = this.tabs.length;
  }

  private async openPage(state: TabState): Promise<void> {
    this.ep.handle.allowPages += 1;
    const page = await this.ep.handle.context.newPage();
    await page.setViewportSize(this.viewport());
    await page.setContent(
      `<!doctype html><html><head><title>${escapeHtml(state.title)}</title></head><body>` +
        `<h1>${escapeHtml(state.title)}</h1><textarea id="note" aria-label="Note" rows="8" cols="60"></textarea></body></html>`,
    );
    await page.evaluate(`(() => { if (!window.__rh) { ${PAGE_AGENT_SOURCE} } return true; })()`);
    this.tabs.push({ ...state, page });
    await this.write(this.tabs.length - 1);
  }

  private async write(index: number): Promise<void> {
    const tab = this.tabs[index];
    if (!tab) return;
    await this.evalIn(
      tab.page,
      `(() => { const t = document.getElementById("note"); t.value = ${JSON.stringify(tab.text.slice(0, tab.typed))}; return true; })()`,
      "typing into a noise tab",
    );
  }

  private evalIn<T>(page: Page, expression: string, what: string): Promise<T> {
    return withTimeout(page.evaluate(expression) as Promise<T>, this.host.timeoutMs, what);
  }

  /** One agent step passed: tabs type on, a tab that hands the focus back does. Returns whether anything changed. */
  async advance(): Promise<boolean> {
    let changed = false;
    for (let i = 0; i < this.tabs.length; i++) {
      const tab = this.tabs[i] as LiveTab;
      if (tab.endedBy === "closed") continue;
      tab.age += 1;
      if (tab.typed < tab.text.length) {
        tab.typed = Math.min(tab.text.length, tab.typed + tab.charsPerStep);
        await this.write(i);
        changed = true;
      }
      if (this.active === i + 1 && tab.returnAfter !== null && tab.age >= tab.returnAfter) {
        this.active = 0;
        tab.endedBy = "auto";
        changed = true;
      }
    }
    return changed;
  }

  /** A tab-switching key (see TAB_KEY): `key` is "tab", "w" or a digit. */
  async key(shift: boolean, key: string): Promise<ActionError | null> {
    const open = [0, ...this.tabs.flatMap((t, i) => (t.endedBy === "closed" ? [] : [i + 1]))];
    const at = Math.max(0, open.indexOf(this.active));
    let next = this.active;
    if (key === "tab") next = open[(at + (shift ? open.length - 1 : 1)) % open.length] as number;
    else if (key === "w") {
      if (this.active === 0)
        return { code: "tab_not_closable", message: "the task's own tab cannot be closed" };
      const tab = this.tabs[this.active - 1] as LiveTab;
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

  status(): PerturbationStatus[] {
    return this.tabs.map((t, i) => {
      const stealing = this.active === i + 1;
      return { id: t.id, active: stealing, ...(t.endedBy ? { endedBy: t.endedBy } : {}) };
    });
  }

  /** The tab strip as observation data and a text line, null while no noise tab is open. */
  describe(): { tabs: Array<{ index: number; title: string; active: boolean }>; line: string } | null {
    const open = this.tabs.flatMap((t, i) => (t.endedBy === "closed" ? [] : [{ t, index: i + 1 }]));
    if (open.length === 0) return null;
    const tabs = [
      { index: 1, title: "Task", active: this.active === 0 },
      ...open.map((o, j) => ({ index: j + 2, title: o.t.title, active: this.active === o.index })),
    ];
    const strip = tabs.map((t) => `${t.index} ${JSON.stringify(t.title)}${t.active ? " (active)" : ""}`);
    return { tabs, line: `Tabs: ${strip.join(" · ")} — switch with Control+1…Control+9` };
  }

  save(): Pick<NoiseState, "tabs" | "active"> {
    return { tabs: this.tabs.map(({ page: _p, ...t }) => t), active: this.active };
  }

  /** What the agent did inside each open tab (page agent `saveExtra()`), null for a closed one. */
  savePages(): Promise<unknown[]> {
    return Promise.all(
      this.tabs.map((t) =>
        t.endedBy === "closed" ? null : this.evalIn(t.page, "window.__rh.saveExtra()", "saving a noise tab"),
      ),
    );
  }

  /** Re-opens saved tabs in a freshly reset episode, with what the agent did inside them. */
  async restore(state: Pick<NoiseState, "tabs" | "active" | "tabPages">): Promise<void> {
    for (const t of state.tabs) await this.openPage(t);
    for (let i = 0; i < state.tabs.length; i++) {
      const tab = this.tabs[i] as LiveTab;
      const saved = state.tabPages?.[i] ?? null;
      if (tab.endedBy === "closed") await tab.page.close().catch(() => {});
      else if (saved !== null) {
        await this.evalIn(
          tab.page,
          `(() => { window.__rh.restoreExtra(${JSON.stringify(saved)}); return true; })()`,
          "restoring a noise tab",
        );
      }
    }
    this.active = state.active;
  }

  /** The view parts (axtree, focus, URL, title) of the noise tab that has the focus. */
  view(): Promise<TabView> {
    const page = this.activePage ?? this.ep.handle.page;
    return this.evalIn<TabView>(
      page,
      `(async () => { await window.__rh.settle(); return { axtree: window.__rh.axtree(), focused: window.__rh.focused(), title: document.title, href: "noise-tab:" + document.title }; })()`,
      "reading a noise tab",
    );
  }
}
