// Helpers shared by the built-in task pages, loaded as ../_shared/task-kit.js after /core/core.js.
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

  window.rehearsalTaskKit = Object.freeze({ syncForm });
})();
