/*
 * Rehearsal page agent, screenshot support (after agent.js, before agent-snapshot.js, which
 * publishes window.__rh). The driver captures the viewport over the page's CDP session; around the
 * capture the caret of every editable element is hidden as Playwright's screenshots hide it (an
 * inline `caret-color: transparent !important` on input, textarea and [contenteditable] elements
 * of the document, its open shadow roots and its frames, then the previous value put back), so a
 * blinking caret never shows in the pixels and the page ends as it would after page.screenshot.
 */
(() => {
  const b = window.__rhBuild;
  if (!b || window.__rh) return;

  /** Puts the hidden carets back; null while none is hidden. */
  let restore = null;

  /** The document, its open shadow roots (at any depth) and those of its frames' documents; null for a frame it cannot reach. */
  function rootsOf(doc, out) {
    out.push(doc);
    const walker = doc.createTreeWalker(doc, NodeFilter.SHOW_ELEMENT);
    while (walker.nextNode()) {
      const el = walker.currentNode;
      if (el.shadowRoot) out.push(el.shadowRoot);
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        let inner = null;
        try {
          inner = el.contentDocument;
        } catch (_e) {
          inner = null;
        }
        if (!inner) return null;
        if (rootsOf(inner, out) === null) return null;
      }
    }
    return out;
  }

  /**
   * Hides the carets and waits for the fonts, as Playwright does before a screenshot. Returns the
   * visual viewport (its document offset and scale: the capture's clip), or null when a frame's
   * document cannot be reached (then the driver takes Playwright's screenshot, which reaches every
   * frame).
   */
  async function hideCaret() {
    showCaret();
    const roots = rootsOf(document, []);
    if (roots === null) return null;
    const saved = new Map();
    for (const root of roots) {
      root.querySelectorAll("input,textarea,[contenteditable]").forEach((el) => {
        if (saved.has(el)) return;
        saved.set(el, {
          value: el.style.getPropertyValue("caret-color"),
          priority: el.style.getPropertyPriority("caret-color"),
        });
        el.style.setProperty("caret-color", "transparent", "important");
      });
    }
    restore = () => {
      for (const [el, v] of saved) el.style.setProperty("caret-color", v.value, v.priority);
    };
    try {
      await document.fonts.ready;
    } catch (_e) {
      /* fonts that fail to load do not block the capture */
    }
    const v = window.visualViewport;
    return v
      ? { x: v.pageLeft, y: v.pageTop, scale: v.scale }
      : { x: window.scrollX, y: window.scrollY, scale: 1 };
  }

  /** Puts back the carets the last hideCaret hid. */
  function showCaret() {
    const r = restore;
    restore = null;
    if (r) r();
    return true;
  }

  b.api.hideCaret = hideCaret;
  b.api.showCaret = showCaret;
})();
