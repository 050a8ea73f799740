/*
 * Rehearsal page agent: installed into every task page before its own scripts (addInitScript).
 * Plain browser JavaScript kept as a file (not a transpiled function) so that nothing the Node-side
 * toolchain adds can leak into the page. Exposes window.__rh (non-enumerable); the driver calls it
 * with string expressions. Element ids: attribute data-rh-id, assigned in document order to every
 * element that has none yet, from a per-page counter; stable while the element lives.
 */
(() => {
  if (window.__rh) return;
  const ATTR = "data-rh-id";
  const POINTER_EVENTS = new Set([
    "click",
    "dblclick",
    "mousedown",
    "mouseup",
    "contextmenu",
    "pointerdown",
    "pointerup",
    "touchstart",
    "dragstart",
    "drop",
    "mouseenter",
    "mouseover",
  ]);
  const ROLES = new Set([
    "button",
    "link",
    "checkbox",
    "radio",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "switch",
    "textbox",
    "searchbox",
    "combobox",
    "slider",
    "spinbutton",
    "listbox",
    "treeitem",
    "gridcell",
  ]);
  const TEXT_INPUTS = new Set(["text", "search", "email", "password", "tel", "url", "number", ""]);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK"]);
  let nextId = 1;
  const pointerTargets = new WeakSet();

  const originalAdd = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (POINTER_EVENTS.has(type) && this instanceof Element) pointerTargets.add(this);
    return originalAdd.call(this, type, listener, options);
  };

  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  const cut = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const quote = (s) => JSON.stringify(s);

  function assignIds() {
    const root = document.documentElement;
    if (!root) return;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.currentNode; n; n = walker.nextNode()) {
      if (!n.hasAttribute(ATTR)) n.setAttribute(ATTR, String(nextId++));
    }
  }

  function visible(el) {
    if (typeof el.checkVisibility === "function") {
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    }
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  }

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(/\s+/)[0];
    const tag = el.tagName;
    if (tag === "A") return el.hasAttribute("href") ? "link" : "a";
    if (tag === "BUTTON" || tag === "SUMMARY") return "button";
    if (tag === "SELECT") return el.multiple ? "listbox" : "combobox";
    if (tag === "TEXTAREA") return "textbox";
    if (tag === "OPTION") return "option";
    if (tag === "IMG") return "img";
    if (/^H[1-6]$/.test(tag)) return "heading";
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "button" || t === "submit" || t === "reset" || t === "image") return "button";
      if (t === "checkbox" || t === "radio") return t;
      if (t === "range") return "slider";
      if (t === "search") return "searchbox";
      if (TEXT_INPUTS.has(t)) return "textbox";
      return t;
    }
    if (el.isContentEditable) return "textbox";
    return tag.toLowerCase();
  }

  function interactive(el) {
    const tag = el.tagName;
    if (tag === "BODY" || tag === "HTML") return false;
    if (tag === "A" && el.hasAttribute("href")) return true;
    if (tag === "BUTTON" || tag === "SELECT" || tag === "TEXTAREA" || tag === "SUMMARY") return true;
    if (tag === "INPUT") return (el.getAttribute("type") || "").toLowerCase() !== "hidden";
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return true;
    const role = el.getAttribute("role");
    if (role && ROLES.has(role)) return true;
    if (pointerTargets.has(el) || el.hasAttribute("onclick") || typeof el.onclick === "function") return true;
    if (el.draggable && tag !== "IMG" && tag !== "A") return true;
    if (el.hasAttribute("tabindex") && el.tabIndex >= 0) return true;
    if (getComputedStyle(el).cursor === "pointer") {
      const p = el.parentElement;
      return !(p && getComputedStyle(p).cursor === "pointer");
    }
    return false;
  }

  function labelText(el) {
    const by = el.getAttribute("aria-labelledby");
    if (by) {
      const parts = by.split(/\s+/).map((id) => document.getElementById(id));
      const text = collapse(parts.map((p) => (p ? p.textContent : "")).join(" "));
      if (text) return text;
    }
    const aria = el.getAttribute("aria-label");
    if (aria) return collapse(aria);
    if (el.labels && el.labels.length > 0) {
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a user sees
      const text = collapse(Array.from(el.labels, (l) => l.innerText || l.textContent).join(" "));
      if (text) return text;
    }
    return "";
  }

  /** Visible text of el, not descending into nested interactive elements. */
  function ownText(el) {
    let out = "";
    for (const c of el.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) out += ` ${c.textContent}`;
      else if (c.nodeType === Node.ELEMENT_NODE && !SKIP.has(c.tagName) && visible(c) && !interactive(c)) {
        out += ` ${c.tagName === "INPUT" ? "" : ownText(c)}`;
      }
    }
    return collapse(out);
  }

  function nameOf(el) {
    const label = labelText(el);
    if (label) return label;
    const tag = el.tagName;
    if (tag === "INPUT") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (t === "button" || t === "submit" || t === "reset") return collapse(el.value);
      return collapse(el.getAttribute("placeholder") || el.getAttribute("title") || "");
    }
    if (tag === "TEXTAREA" || tag === "SELECT") return collapse(el.getAttribute("placeholder") || "");
    if (tag === "IMG") return collapse(el.getAttribute("alt") || el.getAttribute("title") || "");
    return ownText(el) || collapse(el.getAttribute("title") || "");
  }

  function states(el) {
    const out = [];
    const tag = el.tagName;
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "INPUT" && (type === "checkbox" || type === "radio")) {
      if (el.checked) out.push("checked");
    } else if (tag === "INPUT" || tag === "TEXTAREA") {
      const v = type === "password" ? "•".repeat(el.value.length) : el.value;
      if (type !== "button" && type !== "submit" && type !== "reset") out.push(`value=${quote(cut(v, 200))}`);
    } else if (tag === "SELECT") {
      const sel = Array.from(el.selectedOptions, (o) => collapse(o.textContent));
      out.push(`value=${quote(sel.join(", "))}`);
      const opts = Array.from(el.options, (o) => collapse(o.textContent)).slice(0, 50);
      out.push(`options=${JSON.stringify(opts)}`);
    } else if (el.isContentEditable) {
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a user sees
      out.push(`value=${quote(cut(collapse(el.innerText), 200))}`);
    }
    const ariaChecked = el.getAttribute("aria-checked");
    if (ariaChecked === "true") out.push("checked");
    if (el.getAttribute("aria-selected") === "true" || (tag === "OPTION" && el.selected))
      out.push("selected");
    const expanded = el.getAttribute("aria-expanded");
    if (expanded) out.push(expanded === "true" ? "expanded" : "collapsed");
    if (el.disabled || el.getAttribute("aria-disabled") === "true") out.push("disabled");
    if (el.readOnly) out.push("readonly");
    const root = el.getRootNode();
    if (document.activeElement === el || (root !== document && root.activeElement === el))
      out.push("focused");
    return out;
  }

  function hasInteractiveInside(el) {
    for (const c of el.querySelectorAll("*")) if (interactive(c) && visible(c)) return true;
    return false;
  }

  const INLINE = new Set(["inline", "inline-block", "contents", "none"]);
  /** Whether a child element lays out as a block (then each block gets its own text line). */
  function hasBlockInside(el) {
    for (const c of el.children) {
      if (SKIP.has(c.tagName)) continue;
      if (c.tagName === "BR" || !INLINE.has(getComputedStyle(c).display)) return true;
    }
    return false;
  }

  function describe(el) {
    const name = cut(nameOf(el), 100);
    const parts = [`[${el.getAttribute(ATTR)}]`, roleOf(el)];
    if (name) parts.push(quote(name));
    return parts.concat(states(el)).join(" ");
  }

  /** One line per visible interactive element ([id] role "name" states) or text block (text "..."). */
  function axtree() {
    assignIds();
    const lines = [];
    const emitText = (text, depth) => {
      const t = collapse(text);
      if (t) lines.push(`${"  ".repeat(depth)}text ${quote(cut(t, 300))}`);
    };
    // Inside an interactive element its text is its name already: only nested controls are listed.
    const walk = (el, depth, inControl) => {
      for (const c of el.childNodes) {
        if (c.nodeType === Node.TEXT_NODE) {
          if (!inControl) emitText(c.textContent, depth);
          continue;
        }
        if (c.nodeType !== Node.ELEMENT_NODE || SKIP.has(c.tagName) || !visible(c)) continue;
        if (interactive(c)) {
          lines.push(`${"  ".repeat(depth)}${describe(c)}`);
          walk(c, depth + 1, true);
        } else if (inControl) {
          walk(c, depth, true);
        } else if (c.tagName === "IMG") {
          const alt = collapse(c.getAttribute("alt") || "");
          if (alt) lines.push(`${"  ".repeat(depth)}img ${quote(alt)}`);
        } else if (!hasInteractiveInside(c) && !hasBlockInside(c)) {
          // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a user sees
          emitText(c.innerText || "", depth);
        } else {
          walk(c, depth, false);
        }
      }
    };
    const noise = window.__rhNoise ? window.__rhNoise.roots() : [];
    for (const n of noise) if (n.place === "before") walk(n.root, 0, false);
    if (document.body) walk(document.body, 0, false);
    for (const n of noise) if (n.place === "after") walk(n.root, 0, false);
    return lines.join("\n");
  }

  function focused() {
    const inNoise = window.__rhNoise ? window.__rhNoise.focusedElement() : null;
    if (inNoise) return describe(inNoise);
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return "";
    assignIds();
    return describe(el);
  }

  /** A structural dump of the DOM with live form state: the basis of the state fingerprint. */
  function domDigestSource() {
    assignIds();
    const out = [];
    const walk = (node) => {
      if (node.nodeType === Node.TEXT_NODE) {
        const t = collapse(node.textContent);
        if (t) out.push(`#${t}`);
        return;
      }
      if (node.nodeType !== Node.ELEMENT_NODE || SKIP.has(node.tagName)) return;
      // An empty style attribute is skipped: Playwright's screenshots (caret hidden) leave one on
      // every input, textarea and contenteditable, so it tells only whether a screenshot was taken.
      const attrs = Array.from(node.attributes)
        .filter((a) => a.name !== "style" || a.value.trim() !== "")
        .map((a) => `${a.name}=${a.value}`)
        .sort();
      let live = "";
      if (node.tagName === "INPUT" || node.tagName === "TEXTAREA" || node.tagName === "SELECT") {
        live = ` value=${quote(node.value)} checked=${!!node.checked}`;
      }
      out.push(`<${node.tagName} ${attrs.join(" ")}${live}>`);
      for (const c of node.childNodes) walk(c);
      out.push(`</${node.tagName}>`);
    };
    if (document.body) walk(document.body);
    return out.join("");
  }

  /**
   * Everything a task's verifier can read: URL, task globals (without the time-scaled reward), the
   * page's own saved state and the DOM of <body> with live form values. Noise must never change it.
   */
  function verifierState() {
    const { reward: _timeScaled, ...g } = globals();
    let page = null;
    try {
      page = typeof window.rehearsalSaveState === "function" ? window.rehearsalSaveState() : null;
    } catch (e) {
      page = { error: String(e) };
    }
    return { href: location.href, globals: g, page, dom: domDigestSource() };
  }

  function globals() {
    const w = window;
    let verifier = null;
    try {
      verifier = typeof w.rehearsalVerifierState === "function" ? w.rehearsalVerifierState() : null;
    } catch (e) {
      verifier = { error: String(e) };
    }
    return {
      done: !!w.WOB_DONE_GLOBAL,
      rawReward: typeof w.WOB_RAW_REWARD_GLOBAL === "number" ? w.WOB_RAW_REWARD_GLOBAL : 0,
      reward: typeof w.WOB_REWARD_GLOBAL === "number" ? w.WOB_REWARD_GLOBAL : 0,
      reason: w.WOB_REWARD_REASON == null ? null : String(w.WOB_REWARD_REASON),
      ready: !!w.WOB_TASK_READY,
      rng: w.core && typeof w.core.getRandomState === "function" ? w.core.getRandomState() : null,
      verifier: verifier === undefined ? null : verifier,
    };
  }

  function instruction() {
    const core = window.core;
    let u = null;
    try {
      u = core && typeof core.getUtterance === "function" ? core.getUtterance() : null;
    } catch (_e) {
      u = null;
    }
    if (u && typeof u === "object")
      return { utterance: collapse(String(u.utterance || "")), fields: u.fields || {} };
    if (typeof u === "string") return { utterance: collapse(u), fields: null };
    const q = document.getElementById("query");
    return { utterance: collapse(q ? q.textContent : ""), fields: null };
  }

  function byId(id) {
    const key = String(id).replace(/[^0-9]/g, "");
    const el = document.querySelector(`[${ATTR}="${key}"]`);
    if (el || !window.__rhNoise) return el;
    return window.__rhNoise.byId(key);
  }

  /** Viewport point at the centre of the element's visible part; scrolls it into view when needed. */
  function pointOf(el, scroll) {
    if (!el.isConnected) return { error: "element_detached" };
    if (!visible(el)) return { error: "element_not_visible" };
    let r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return { error: "element_not_visible" };
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const inside = (b) => b.left >= 0 && b.top >= 0 && b.right <= vw && b.bottom <= vh;
    if (!inside(r) && scroll) {
      window.__rhSettle?.noteScroll();
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    const left = Math.max(r.left, 0);
    const top = Math.max(r.top, 0);
    const right = Math.min(r.right, vw);
    const bottom = Math.min(r.bottom, vh);
    if (right <= left || bottom <= top) return { error: "element_outside_viewport" };
    return { x: Math.round((left + right) / 2), y: Math.round((top + bottom) / 2) };
  }

  /** The click point of element `id`; scrolls it into view unless `noScroll`. */
  function target(id, noScroll) {
    const el = byId(id);
    if (!el) return { error: "unknown_element" };
    return pointOf(el, !noScroll);
  }

  function editable(el) {
    if (el.tagName === "TEXTAREA") return !el.disabled && !el.readOnly;
    if (el.tagName === "INPUT") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      return (TEXT_INPUTS.has(t) || t === "date" || t === "time") && !el.disabled && !el.readOnly;
    }
    return el.isContentEditable;
  }

  /** Focuses an editable element (caret at the end) unless it already has focus. */
  function focusForTyping(id) {
    const el = byId(id);
    if (!el) return { error: "unknown_element" };
    if (!editable(el)) return { error: "not_editable" };
    if (document.activeElement !== el) {
      el.focus();
      if (typeof el.setSelectionRange === "function") {
        try {
          el.setSelectionRange(el.value.length, el.value.length);
        } catch (_e) {
          /* inputs without selection (number) */
        }
      }
    }
    return {};
  }

  function select(id, value) {
    const el = byId(id);
    if (!el) return { error: "unknown_element" };
    if (el.tagName !== "SELECT") return { error: "not_a_select" };
    if (el.disabled) return { error: "element_disabled" };
    const opts = Array.from(el.options);
    const opt =
      opts.find((o) => o.value === value) || opts.find((o) => collapse(o.textContent) === collapse(value));
    if (!opt) return { error: "invalid_option", options: opts.map((o) => o.value) };
    el.focus();
    el.value = opt.value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return {};
  }

  const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(true)));

  /** Scroll offsets of the window and of every element above the point: changes when a wheel lands. */
  function scrollSignature(x, y) {
    const parts = [window.scrollX, window.scrollY];
    for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) {
      parts.push(el.scrollLeft, el.scrollTop);
    }
    return parts.join(",");
  }

  /**
   * Waits until a wheel scroll at (x, y) has landed: the scroll offsets changed from `before` and
   * held for a frame, or did not change for three frames (nothing to scroll), at most 30 frames.
   */
  async function settleScroll(x, y, before) {
    let last = scrollSignature(x, y);
    let stable = 0;
    for (let i = 0; i < 30; i++) {
      await frame();
      const now = scrollSignature(x, y);
      if (now !== last) {
        stable = 0;
        last = now;
        continue;
      }
      stable += 1;
      if ((now !== before && stable >= 1) || stable >= 3) break;
    }
    return true;
  }

  /** Resolves an oracle selector to an element id (interactive) or a viewport point. */
  function resolveSelector(selector) {
    assignIds();
    let els;
    try {
      els = Array.from(document.querySelectorAll(selector)).filter(visible);
    } catch (_e) {
      return { error: `invalid selector ${selector}` };
    }
    if (els.length !== 1) return { error: `selector ${selector} matches ${els.length} visible elements` };
    const el = els[0];
    if (interactive(el)) return { elementId: el.getAttribute(ATTR) };
    const p = pointOf(el, false);
    if (p.error) return { elementId: el.getAttribute(ATTR) };
    return p;
  }

  function oracle() {
    if (typeof window.rehearsalOracle !== "function") return { missing: true };
    const a = window.rehearsalOracle();
    return { action: a === undefined ? null : a };
  }

  // Handed to agent-snapshot.js (installed right after this script), which adds the snapshot
  // functions and publishes the frozen window.__rh.
  Object.defineProperty(window, "__rhBuild", {
    enumerable: false,
    configurable: true,
    value: {
      ATTR,
      assignIds,
      globals,
      getNextId: () => nextId,
      setNextId: (n) => {
        nextId = n;
      },
      api: {
        assignIds,
        axtree,
        focused,
        domDigestSource,
        verifierState,
        globals,
        instruction,
        target,
        focusForTyping,
        select,
        resolveSelector,
        scrollSignature,
        settleScroll,
        oracle,
        // Until the page is quiet (pending timers, frames, requests, animations, mutations): see
        // agent-settle.js, installed before this script.
        settle: (options) => window.__rhSettle.settle(options),
      },
    },
  });
})();
