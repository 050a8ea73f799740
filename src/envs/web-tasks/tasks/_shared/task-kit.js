// Helpers shared by the built-in task pages, loaded as ../_shared/task-kit.js after /core/core.js:
// seeded picks (R), HTML escaping (esc), ending the episode once (finish), exact snapshots of a
// one-object page state (snapshots), the oracle's next step to fill a text field (fieldAction) and
// property-only form state (syncForm).
(() => {
  // Form state lives in properties only (no value/checked/selected attributes), so a page rebuilt
  // from a saved state has exactly the DOM of the page it was saved from.
  function syncForm(root) {
    for (const el of root.querySelectorAll("input, textarea, select")) {
      if (el.tagName === "SELECT") {
        const v = el.value;
        for (const o of el.options) o.removeAttribute("selected");
        el.value = v;
      } else if (el.type === "checkbox" || el.type === "radio") {
        const c = el.hasAttribute("checked");
        el.removeAttribute("checked");
        el.checked = c;
        // An explicit value attribute: restoring control values by DOM path writes .value, which on a
        // checkbox or radio creates the attribute; having it from the start keeps both DOMs equal.
        if (!el.hasAttribute("value")) el.setAttribute("value", "on");
      } else {
        const v = el.value;
        el.removeAttribute("value");
        if (el.tagName === "TEXTAREA") el.textContent = "";
        el.value = v;
      }
    }
  }

  // Seeded randomness (Math.random is seeded by core.js): an integer in [0, n), an item, a shuffled copy.
  const R = Object.freeze({
    int: (n) => Math.floor(Math.random() * n),
    pick: (a) => a[Math.floor(Math.random() * a.length)],
    shuffle: (a) => {
      const out = a.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  });

  /** Text made safe for innerHTML (element content and attribute values). */
  const esc = (s) =>
    String(s).replace(
      /[&<>"']/g,
      (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
    );

  /** Ends the episode once, with reward 1 (ok) or 0, and records the ending in the page state. */
  function finish(state, ok, reason) {
    if (state.ended) return;
    state.ended = { reward: ok ? 1 : 0, reason };
    core.endEpisode(ok ? 1 : 0, false, reason);
  }

  /**
   * Exact snapshots of a page whose whole state is one plain object: rehearsalSaveState copies it,
   * rehearsalRestoreState hands a copy of the saved one to `restore` (which re-renders).
   */
  function snapshots(get, restore) {
    window.rehearsalSaveState = () => JSON.parse(JSON.stringify(get()));
    window.rehearsalRestoreState = (saved) => restore(JSON.parse(JSON.stringify(saved)));
  }

  /** The next oracle action to make a text field read `want` (the driver types at the end of the value). */
  function fieldAction(sel, want) {
    const el = document.querySelector(sel);
    const cur = el.value;
    if (cur === want) return null;
    if (want.startsWith(cur)) return { type: "type", selector: sel, text: want.slice(cur.length) };
    if (document.activeElement !== el) return { type: "click", selector: sel };
    if (el.selectionStart !== 0 || el.selectionEnd !== cur.length) return { type: "key", keys: "ctrl+a" };
    return { type: "key", keys: "Backspace" };
  }

  window.rehearsalTaskKit = Object.freeze({ syncForm, R, esc, finish, snapshots, fieldAction });
})();
