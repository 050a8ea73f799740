/*
 * Rehearsal page agent, part 2 (after agent.js): exact-snapshot support. Saves and restores, by DOM
 * path, what a page's own rehearsalSaveState does not carry: element ids, form control state, focus
 * and text selection, scroll offsets, the PRNG state and the WOB globals. Then publishes window.__rh.
 */
(() => {
  const b = window.__rhBuild;
  if (!b || window.__rh) return;
  delete window.__rhBuild;
  const { ATTR, assignIds, globals } = b;

  function pathOf(el) {
    const path = [];
    for (let n = el; n && n !== document.documentElement; n = n.parentElement) {
      const p = n.parentElement;
      if (!p) break;
      path.push(Array.prototype.indexOf.call(p.children, n));
    }
    return path.reverse().join(".");
  }

  function atPath(path) {
    let n = document.documentElement;
    if (path === "") return n;
    for (const i of path.split(".")) {
      n = n ? n.children[Number(i)] : null;
      if (!n) return null;
    }
    return n;
  }

  function saveExtra() {
    assignIds();
    const ids = [];
    const controls = [];
    const scroll = [];
    for (const el of document.querySelectorAll(`[${ATTR}]`)) {
      const path = pathOf(el);
      ids.push([path, el.getAttribute(ATTR)]);
      if (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT") {
        controls.push([path, { value: el.value, checked: !!el.checked }]);
      }
      if (el.scrollTop || el.scrollLeft) scroll.push([path, el.scrollLeft, el.scrollTop]);
    }
    const a = document.activeElement;
    let selection = null;
    if (a && typeof a.selectionStart === "number") {
      selection = [a.selectionStart, a.selectionEnd, a.selectionDirection];
    }
    const core = window.core;
    return {
      nextId: b.getNextId(),
      ids,
      controls,
      scroll,
      window: [window.scrollX, window.scrollY],
      focus: a && a !== document.body ? pathOf(a) : null,
      selection,
      globals: globals(),
      queryFields: core?.QUERY_FIELDS ? JSON.parse(JSON.stringify(core.QUERY_FIELDS)) : null,
      episodeId: core ? core.episodeId : 0,
    };
  }

  function restoreExtra(x) {
    for (const el of document.querySelectorAll(`[${ATTR}]`)) el.removeAttribute(ATTR);
    for (const [path, id] of x.ids) {
      const el = atPath(path);
      if (el) el.setAttribute(ATTR, id);
    }
    b.setNextId(x.nextId);
    assignIds();
    for (const [path, c] of x.controls) {
      const el = atPath(path);
      if (!el) continue;
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (el.tagName === "INPUT" && (type === "checkbox" || type === "radio")) {
        // Writing .value on these sets the value attribute (a DOM change): restore checked only.
        el.checked = c.checked;
      } else if (el.tagName === "INPUT" && type === "file") {
        // A file input's value cannot be set from script.
      } else if (el.value !== c.value) {
        el.value = c.value;
      }
    }
    for (const [path, left, top] of x.scroll) {
      const el = atPath(path);
      if (el) {
        el.scrollLeft = left;
        el.scrollTop = top;
      }
    }
    window.scrollTo(x.window[0], x.window[1]);
    if (x.focus !== null) {
      const el = atPath(x.focus);
      if (el && typeof el.focus === "function") el.focus();
      if (el && x.selection && typeof el.setSelectionRange === "function") {
        el.setSelectionRange(x.selection[0], x.selection[1], x.selection[2] || "none");
      }
    } else if (document.activeElement && typeof document.activeElement.blur === "function") {
      document.activeElement.blur();
    }
    const w = window;
    const g = x.globals;
    w.WOB_DONE_GLOBAL = g.done;
    w.WOB_RAW_REWARD_GLOBAL = g.rawReward;
    w.WOB_REWARD_GLOBAL = g.reward;
    w.WOB_REWARD_REASON = g.reason;
    w.WOB_TASK_READY = g.ready;
    if (w.core) {
      if (typeof w.core.setRandomState === "function") w.core.setRandomState(g.rng);
      w.core.QUERY_FIELDS = x.queryFields;
      w.core.episodeId = x.episodeId;
    }
    // Whether the restored state is scrolled anywhere: its scroll events come in the next rendering
    // step (the settle then waits for it, see markRestored in agent-settle.js).
    return { scrolled: x.scroll.length > 0 || x.window[0] !== 0 || x.window[1] !== 0 };
  }

  /** Whether the window or any element is scrolled now (a restore that changes it gets scroll events). */
  function scrolledNow() {
    if (window.scrollX !== 0 || window.scrollY !== 0) return true;
    for (const el of document.querySelectorAll("*")) if (el.scrollTop || el.scrollLeft) return true;
    return false;
  }

  Object.defineProperty(window, "__rh", {
    enumerable: false,
    configurable: false,
    writable: false,
    value: Object.freeze({ ...b.api, saveExtra, restoreExtra, scrolledNow }),
  });
})();
