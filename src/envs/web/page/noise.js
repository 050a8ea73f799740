/*
 * Rehearsal noise layer: page widgets that interrupt the agent (toasts, banners, modals, panels in
 * which someone types, occluders, a spacer that shifts the layout). Installed after the page agent;
 * exposes window.__rhNoise (non-enumerable). Everything lives in two <rh-noise> hosts the layer owns,
 * each with its own shadow root: one overlay host after <body>, one in-flow host before it (for
 * layout shifts). The layer never dispatches input to task elements and never writes task state.
 * The state is plain data (`save`/`restore`) and the DOM is rendered from it, so that snapshots and
 * replays reproduce it exactly. Noise elements get ids from 900001 on, so task ids never shift.
 */
(() => {
  if (window.__rhNoise) return;
  const ATTR = "data-rh-id";
  const HOST_TAG = "rh-noise";
  const ID_BASE = 900000;
  /** @type {{ widgets: any[], seq: number }} */
  let state = { widgets: [], seq: 0 };
  let overlayHost = null;
  let flowHost = null;
  let drag = null;

  const clone = (x) => JSON.parse(JSON.stringify(x));

  function host(kind) {
    const existing = kind === "flow" ? flowHost : overlayHost;
    if (existing?.isConnected) return existing;
    const h = document.createElement(HOST_TAG);
    h.setAttribute(ATTR, String(kind === "flow" ? ID_BASE - 1 : ID_BASE));
    h.setAttribute("data-rh-noise", kind);
    h.attachShadow({ mode: "open" });
    if (kind === "flow") {
      h.style.cssText = "display:block;margin:0;padding:0;";
      document.documentElement.insertBefore(h, document.body);
      flowHost = h;
    } else {
      h.style.cssText = "position:fixed;inset:0;pointer-events:none;z-index:2147483646;display:block;";
      document.documentElement.appendChild(h);
      overlayHost = h;
    }
    return h;
  }

  const STYLE = `
    :host { all: initial; }
    * { box-sizing: border-box; font-family: Arial, sans-serif; font-size: 13px; }
    .w { position: fixed; pointer-events: auto; background: #fff; color: #222; border: 1px solid #888;
         box-shadow: 0 4px 18px rgba(0,0,0,.35); padding: 8px; border-radius: 6px; overflow: hidden; }
    .backdrop { position: fixed; inset: 0; pointer-events: auto; background: rgba(0,0,0,.35); }
    .t { font-weight: bold; margin: 0 0 4px 0; display: block; }
    .b { margin: 2px 0; display: block; }
    .row { margin-top: 6px; display: flex; gap: 6px; flex-wrap: wrap; }
    button { font-size: 12px; padding: 3px 8px; cursor: pointer; }
    textarea { width: 100%; height: 64px; font-size: 12px; }
    .handle { cursor: move; background: #dde; margin: -8px -8px 6px -8px; padding: 4px 8px; display: block; }
    .spacer { display: block; background: #f4f0d8; color: #553; padding: 6px 10px; overflow: hidden; }
  `;

  function place(el, w, index) {
    const s = el.style;
    const o = w.offset || { x: 0, y: 0 };
    const at = (left, top) => {
      s.left = `${Math.round(left + o.x)}px`;
      s.top = `${Math.round(top + o.y)}px`;
    };
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    switch (w.spec.layout) {
      case "toast":
        s.width = "260px";
        at(vw - 276, vh - 96 - index * 8);
        break;
      case "stack":
        s.width = "280px";
        at(vw - 296, 16 + index * 8);
        break;
      case "banner-top":
        s.width = `${vw}px`;
        s.borderRadius = "0";
        at(0, 0);
        break;
      case "banner-bottom":
        s.width = `${vw}px`;
        s.borderRadius = "0";
        at(0, vh - 72);
        break;
      case "modal":
        s.width = "340px";
        at(Math.round(vw / 2 - 170), Math.round(vh / 2 - 110));
        break;
      case "sheet":
        s.width = `${vw}px`;
        s.borderRadius = "0";
        at(0, Math.round(vh * 0.62));
        s.height = `${Math.round(vh * 0.38)}px`;
        break;
      case "panel":
        s.width = "300px";
        at(vw - 316, Math.round(vh / 2 - 60));
        break;
      case "corner":
        s.width = "240px";
        at(vw - 256, vh - 230);
        break;
      case "occluder": {
        const r = w.rect || { left: 0, top: 0, width: 80, height: 30 };
        const cover = w.spec.cover || 0.6;
        s.padding = "2px 4px";
        s.borderRadius = "3px";
        s.width = `${Math.max(40, Math.round(r.width * cover))}px`;
        s.minHeight = `${Math.max(18, Math.round(r.height))}px`;
        at(r.left, r.top);
        break;
      }
      default:
        at(16, 16);
    }
  }

  // Widget i owns the ids ID_BASE + 1000 + 20·i … + 19: stable while the widget lives.
  let tagIndex = 0;
  let tagCount = 0;
  function tag(el) {
    tagCount += 1;
    el.setAttribute(ATTR, String(ID_BASE + 1000 + tagIndex * 20 + tagCount));
    return el;
  }

  function renderWidget(root, w, index) {
    const spec = w.spec;
    tagIndex = index;
    tagCount = 0;
    if (spec.layout === "spacer") {
      const el = tag(document.createElement("div"));
      el.className = "spacer";
      el.setAttribute("role", spec.role);
      el.style.height = `${spec.height || 80}px`;
      el.textContent = [spec.title, ...spec.body].filter(Boolean).join(" — ");
      root.appendChild(el);
      return;
    }
    if (spec.backdrop) {
      const b = document.createElement("div");
      b.className = "backdrop";
      b.setAttribute(ATTR, String(ID_BASE + 1000 + index * 20 + 19));
      root.appendChild(b);
    }
    const el = document.createElement("div");
    el.className = "w";
    el.setAttribute(ATTR, String(ID_BASE + 1000 + index * 20));
    el.setAttribute("role", spec.role);
    if (spec.title) el.setAttribute("aria-label", spec.title);
    if (spec.movable) {
      const h = tag(document.createElement("div"));
      h.className = "handle";
      h.setAttribute("role", "button");
      h.setAttribute("aria-label", `Move ${spec.title || "window"}`);
      h.textContent = spec.title || "window";
      h.addEventListener("mousedown", (e) => {
        drag = { index, x: e.clientX, y: e.clientY };
      });
      el.appendChild(h);
    } else if (spec.title) {
      const t = document.createElement("div");
      t.className = "t";
      t.textContent = spec.title;
      el.appendChild(t);
    }
    for (const line of spec.body) {
      const p = document.createElement("div");
      p.className = "b";
      p.textContent = line;
      el.appendChild(p);
    }
    if (spec.typing || spec.stealFocus) {
      const ta = tag(document.createElement("textarea"));
      ta.setAttribute("aria-label", `${spec.title || "Note"} text`);
      ta.value = spec.typing ? spec.typing.text.slice(0, w.typed || 0) : "";
      ta.addEventListener("input", () => {
        w.own = ta.value;
      });
      if (w.own !== undefined) ta.value = w.own;
      el.appendChild(ta);
    }
    if (spec.buttons.length > 0) {
      const row = document.createElement("div");
      row.className = "row";
      for (const button of spec.buttons) {
        const bt = tag(document.createElement("button"));
        bt.textContent = button.label;
        bt.addEventListener("click", () => press(index, button));
        row.appendChild(bt);
      }
      el.appendChild(row);
    }
    place(el, w, index);
    root.appendChild(el);
  }

  function render() {
    const focusedIndex = focusedWidget();
    const open = state.widgets.map((w, i) => [w, i]).filter(([w]) => w.open);
    const hasFlow = open.some(([w]) => w.spec.layout === "spacer");
    const hasOverlay = open.some(([w]) => w.spec.layout !== "spacer");
    for (const [kind, needed] of [
      ["flow", hasFlow],
      ["overlay", hasOverlay],
    ]) {
      const current = kind === "flow" ? flowHost : overlayHost;
      if (!needed && !current) continue;
      const h = host(kind);
      const root = h.shadowRoot;
      root.replaceChildren();
      const style = document.createElement("style");
      style.textContent = STYLE;
      root.appendChild(style);
      for (const [w, i] of open) {
        if ((w.spec.layout === "spacer") === (kind === "flow")) renderWidget(root, w, i);
      }
    }
    if (focusedIndex !== null) focusWidget(focusedIndex);
  }

  function widgetElement(index) {
    const root = overlayHost?.shadowRoot;
    return root ? root.querySelector(`[${ATTR}="${ID_BASE + 1000 + index * 20}"]`) : null;
  }

  function focusedWidget() {
    if (!overlayHost || document.activeElement !== overlayHost) return null;
    const a = overlayHost.shadowRoot.activeElement;
    if (!a) return null;
    for (let i = 0; i < state.widgets.length; i++) {
      const el = widgetElement(i);
      if (el?.contains(a)) return i;
    }
    return null;
  }

  function focusWidget(index) {
    const el = widgetElement(index);
    const ta = el?.querySelector("textarea");
    if (ta) {
      ta.focus();
      ta.setSelectionRange(ta.value.length, ta.value.length);
    }
  }

  function close(index, how) {
    const w = state.widgets[index];
    if (!w?.open) return;
    w.open = false;
    w.endedBy = how;
  }

  function press(index, button) {
    const w = state.widgets[index];
    if (!w?.open) return;
    if (button.effect === "none") return;
    close(index, `button:${button.label}`);
    if (button.effect === "next" && w.spec.followUp) {
      state.widgets.push({
        id: `${w.id}+`,
        spec: w.spec.followUp,
        open: true,
        typed: 0,
        age: 0,
        offset: { x: 0, y: 0 },
      });
    }
    render();
  }

  // Releasing a drag anywhere moves the dragged widget (reading input, never dispatching it).
  window.addEventListener(
    "mouseup",
    (e) => {
      if (!drag) return;
      const w = state.widgets[drag.index];
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      drag = null;
      if (!w?.open || (dx === 0 && dy === 0)) return;
      w.offset = { x: (w.offset?.x || 0) + dx, y: (w.offset?.y || 0) + dy };
      w.moved = true;
      render();
    },
    true,
  );

  /** Adds a widget (spec already validated by the driver). `rect`: the target box for occluders. */
  function add(id, spec, rect) {
    const w = { id, spec, open: true, typed: 0, age: 0, offset: { x: 0, y: 0 } };
    if (rect) w.rect = rect;
    if (spec.typing) w.typed = Math.min(spec.typing.text.length, spec.typing.charsPerStep);
    state.widgets.push(w);
    state.seq += 1;
    render();
    if (spec.stealFocus) focusWidget(state.widgets.length - 1);
    return {};
  }

  /** One agent step passed: typing progresses, auto-closing widgets count down, drifting ones move. */
  function tick() {
    let changed = false;
    for (let i = 0; i < state.widgets.length; i++) {
      const w = state.widgets[i];
      if (!w.open) continue;
      w.age += 1;
      const s = w.spec;
      if (s.autoCloseAfter !== undefined && w.age >= s.autoCloseAfter) {
        close(i, "auto");
        changed = true;
        continue;
      }
      if (s.typing && w.own === undefined && w.typed < s.typing.text.length) {
        w.typed = Math.min(s.typing.text.length, w.typed + s.typing.charsPerStep);
        changed = true;
      }
      if (s.drift && !w.moved) {
        w.offset = { x: w.offset.x + s.drift.dx, y: w.offset.y + s.drift.dy };
        changed = true;
      }
    }
    if (changed) render();
    return changed;
  }

  /** Escape: closes the topmost open widget that Escape closes; true when it consumed the key. */
  function closeTopOnEscape() {
    for (let i = state.widgets.length - 1; i >= 0; i--) {
      const w = state.widgets[i];
      if (w.open && w.spec.closeOnEscape) {
        close(i, "escape");
        render();
        return true;
      }
      if (w.open && w.spec.backdrop) return false;
    }
    return false;
  }

  function status() {
    return state.widgets.map((w) => ({
      id: w.id,
      active: w.open,
      ...(w.endedBy ? { endedBy: w.endedBy } : {}),
      ...(w.moved ? { moved: true } : {}),
    }));
  }

  function save() {
    return { state: clone(state), focused: focusedWidget() };
  }

  function restore(saved) {
    state = clone(saved.state);
    render();
    if (saved.focused !== null && saved.focused !== undefined) focusWidget(saved.focused);
    return {};
  }

  /**
   * Takes the whole layer out of the page (hosts removed, no widgets): the page as a fresh one has
   * it, before an in-page restore puts a saved state back (or none).
   */
  function clear() {
    overlayHost?.remove();
    flowHost?.remove();
    overlayHost = null;
    flowHost = null;
    drag = null;
    state = { widgets: [], seq: 0 };
    return {};
  }

  /** Shadow roots the page agent walks for the accessibility text (overlay after the page). */
  function roots() {
    const out = [];
    if (flowHost?.isConnected) out.push({ place: "before", root: flowHost.shadowRoot });
    if (overlayHost?.isConnected) out.push({ place: "after", root: overlayHost.shadowRoot });
    return out;
  }

  function byId(id) {
    for (const { root } of roots()) {
      const el = root.querySelector(`[${ATTR}="${id}"]`);
      if (el) return el;
    }
    return null;
  }

  /** The element focused inside a noise host, if the focus is there. */
  function focusedElement() {
    const a = document.activeElement;
    if (a && (a === overlayHost || a === flowHost)) return a.shadowRoot.activeElement;
    return null;
  }

  /** The viewport box of task element `id` (for occluders), or null when it is not visible. */
  function rectOf(id) {
    const el = document.querySelector(`[${ATTR}="${String(id).replace(/[^0-9]/g, "")}"]`);
    if (!el?.isConnected) return null;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return null;
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  }

  Object.defineProperty(window, "__rhNoise", {
    enumerable: false,
    configurable: false,
    writable: false,
    value: Object.freeze({
      add,
      tick,
      escape: closeTopOnEscape,
      status,
      save,
      restore,
      clear,
      roots,
      byId,
      focusedElement,
      rectOf,
    }),
  });
})();
