/*
 * Rehearsal settle tracker: installed into every task page before the page agent and the page's
 * own scripts. It wraps whatever the page's timer, frame and network functions are when it runs
 * (the browser's, Playwright's clock, a compatibility layer — installed before or after, in any
 * order) to know which work is pending, without changing what they do (return values, ids, `this`,
 * extra arguments; string handlers go to the browser unchanged). `window.__rhSettle.settle(options)` resolves as soon as the
 * page is quiet: no tracked timer pending, no pending animation frame, no request in flight, no
 * running finite animation, and no DOM mutation for one frame; or at `maxMs` (timedOut: true).
 * When nothing changed since the last quiet settle (no DOM change, no scroll), nothing is pending
 * and the page observes no sizes or intersections (their callbacks run in the next rendering step),
 * the frame is skipped; and when the page also posted no task since then (postMessage,
 * requestIdleCallback, scheduler.postTask), no macrotask is awaited either: after an input event
 * Chromium runs the next frame before any page task (even a user-blocking one), so a macrotask would
 * cost most of a frame. A CDP evaluation starts in a task of its own, after the microtasks of the
 * action's event handlers have run.
 *
 * A settle that starts with a scroll since the last quiet one (the agent scrolled an element into
 * view, the window's offsets moved, a restore scrolled) waits for two frames: a scroll's events may
 * come a frame late, and the page's scroll handlers may change it. So does every settle on a page that
 * observes sizes or intersections: on a busy machine Chromium sometimes runs a frame's animation
 * callbacks without that frame's observer callbacks, which come with the next frame (measured beside
 * two busy-looping processes: 8 of 80 settles missed a focus style's resize after one frame; beside
 * four to six, none of 180 did after two).
 *
 * A timer counts when it is due within `horizonMs` of the start of its chain (a timer or frame
 * armed from a timer or frame callback belongs to that callback's chain); a non-finite or huge
 * delay (> 2^31-1 ms) never counts, an interval counts for its first tick only, and a frame chain
 * (a requestAnimationFrame loop) counts for `horizonMs` from its start. So clocks and endless
 * loops never hold a step for more than the horizon, and a step never waits past `maxMs`.
 */
(() => {
  if (window.__rhSettle) return;
  const ATTR = "data-rh-id";
  const MAX_DELAY = 2147483647;
  const STALE_MS = 1000;
  const DEFAULTS = { horizonMs: 1000, maxMs: 3000 };
  const now = () => performance.now();
  const rawSetTimeout = window.setTimeout;
  const rawRaf = window.requestAnimationFrame;
  const addListener = EventTarget.prototype.addEventListener;
  const rawClearTimeout = window.clearTimeout;
  const rawPortPost = window.MessagePort?.prototype.postMessage;

  /** Tracked timers: id -> { due, root, companion (for a string handler) }. */
  const timers = new Map();
  /** Pending animation frames: id -> chain start. */
  const frames = new Map();
  let requests = 0;
  let mutations = 0;
  /** How many tasks the page posted that no tracker follows (messages, idle callbacks, posted tasks). */
  let posted = 0;
  /** While a tracked callback runs: the start time of its chain. */
  let chain = null;

  /** A style attribute without its caret-color declarations, normalised. */
  function withoutCaret(style) {
    return (style ?? "")
      .split(";")
      .map((d) => d.trim())
      .filter((d) => d !== "" && !/^caret-color\s*:/i.test(d))
      .join(";");
  }

  /**
   * Whether a change is not the page's: the agent's own id attributes, or a style change of caret
   * colour only (Playwright's screenshot hides the caret of every editable element and restores it).
   */
  function foreign(r) {
    if (r.type !== "attributes") return false;
    if (r.attributeName === ATTR) return true;
    if (r.attributeName !== "style") return false;
    const current = r.target.getAttribute("style");
    return (r.oldValue ?? "") !== (current ?? "") && withoutCaret(r.oldValue) === withoutCaret(current);
  }

  /** Counts a batch of DOM changes made by the page. */
  function countMutations(records) {
    for (const r of records) {
      if (!foreign(r)) {
        mutations += 1;
        return;
      }
    }
  }
  const observer = new MutationObserver(countMutations);
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeOldValue: true,
    characterData: true,
  });
  /** The mutation count when the last settle found the page quiet (-1: none yet). */
  let quietAt = -1;
  /** The `posted` count when the last settle ended. */
  let postedAt = 0;
  /**
   * Whether anything scrolled since then: a scroll event, the page agent scrolling an element into
   * view (its scroll event comes only in the next rendering step), or the window's scroll offsets.
   */
  let scrolled = false;
  const scrollNow = () => `${window.scrollX},${window.scrollY}`;
  let scrollAt = "";
  addListener.call(
    window,
    "scroll",
    () => {
      scrolled = true;
    },
    { capture: true, passive: true },
  );

  /** The delay a timer counts with (a missing or NaN delay is 0, as in browsers), or null: never counts. */
  function delayOf(delay) {
    const d = Number(delay);
    if (Number.isNaN(d)) return 0;
    if (!Number.isFinite(d) || d > MAX_DELAY) return null;
    return Math.max(0, d);
  }

  /** The horizon of the latest settle: what callbacks running between settles are judged by. */
  let horizonNow = DEFAULTS.horizonMs;

  /**
   * The callback a tracked function hands on: runs the page's handler inside its chain. `counts()`
   * tells whether this run is work a settle waits for; when it is not (an interval's later ticks, a
   * frame loop past the horizon), the DOM changes it made are not counted as activity either.
   */
  function inChain(handler, start, counts) {
    return function (...args) {
      const counted = counts();
      const outer = chain;
      chain = start;
      try {
        return handler.apply(this, args);
      } finally {
        chain = outer;
        const records = observer.takeRecords();
        if (counted) countMutations(records);
      }
    };
  }

  /** setTimeout / setInterval: an interval's entry goes at its first tick (later ticks never count). */
  function wrapTimer(name) {
    const original = window[name];
    if (typeof original !== "function") return;
    window[name] = function (handler, delay, ...args) {
      const d = delayOf(delay);
      if (d === null) return original.call(this, handler, delay, ...args);
      const armed = now();
      const entry = { due: armed + d, root: chain ?? armed, companion: null };
      let id;
      if (typeof handler !== "function") {
        // A string handler goes to the browser as it is (global code, under the page's CSP); a
        // timer of ours with the same delay, armed right after it, fires right after it.
        id = original.call(this, handler, delay, ...args);
        entry.companion = rawSetTimeout.call(window, () => timers.get(id) === entry && timers.delete(id), d);
        timers.set(id, entry);
        return id;
      }
      const run = inChain(handler, entry.root, () => {
        if (timers.get(id) !== entry) return false; // an interval's later tick
        timers.delete(id);
        return entry.due - entry.root <= horizonNow;
      });
      id = original.call(this, run, delay, ...args);
      timers.set(id, entry);
      return id;
    };
  }

  function wrapClear(name) {
    const original = window[name];
    if (typeof original !== "function") return;
    window[name] = function (id, ...rest) {
      for (const key of typeof id === "number" ? [id] : [id, Number(id)]) {
        const entry = timers.get(key);
        if (entry?.companion != null) rawClearTimeout.call(window, entry.companion);
        timers.delete(key);
      }
      return original.call(this, id, ...rest);
    };
  }

  wrapTimer("setTimeout");
  wrapTimer("setInterval");
  wrapClear("clearTimeout");
  wrapClear("clearInterval");

  if (typeof rawRaf === "function") {
    window.requestAnimationFrame = function (callback) {
      const root = chain ?? now();
      let id;
      const run = inChain(callback, root, () => frames.delete(id) && now() - root <= horizonNow);
      id = rawRaf.call(this, run);
      frames.set(id, root);
      return id;
    };
    const cancel = window.cancelAnimationFrame;
    window.cancelAnimationFrame = function (id) {
      frames.delete(id);
      return cancel.call(this, id);
    };
  }

  /** Counts the calls of `owner[name]` in `posted` (what they schedule runs in a later task). */
  function countPosts(owner, name) {
    const original = owner?.[name];
    if (typeof original !== "function") return;
    owner[name] = function (...args) {
      posted += 1;
      return original.apply(this ?? owner, args);
    };
  }

  countPosts(window.MessagePort?.prototype, "postMessage");
  countPosts(window.BroadcastChannel?.prototype, "postMessage");
  countPosts(window, "postMessage");
  countPosts(window, "requestIdleCallback");
  countPosts(window.scheduler, "postTask");

  /**
   * Whether the page observes sizes or intersections: their callbacks run in a rendering step (after
   * a focus style resized an element, say), so on such a page a settle always waits two frames.
   */
  let observesLayout = false;
  for (const name of ["ResizeObserver", "IntersectionObserver"]) {
    const proto = window[name]?.prototype;
    const observe = proto?.observe;
    if (typeof observe !== "function") continue;
    proto.observe = function (...args) {
      observesLayout = true;
      return observe.apply(this, args);
    };
  }

  function begin() {
    requests += 1;
    let open = true;
    return () => {
      if (open) {
        open = false;
        requests -= 1;
      }
    };
  }

  /** Wraps a promise-returning function so that it counts as a request until its promise settles. */
  function trackPromise(owner, name) {
    const original = owner?.[name];
    if (typeof original !== "function") return;
    owner[name] = function (...args) {
      const p = original.apply(this, args);
      if (p && typeof p.then === "function") {
        const end = begin();
        p.then(end, end);
      }
      return p;
    };
  }

  trackPromise(window, "fetch");
  if (window.Response) {
    for (const m of ["json", "text", "arrayBuffer", "blob", "formData", "bytes"]) {
      trackPromise(window.Response.prototype, m);
    }
  }
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      const end = begin();
      addListener.call(this, "loadend", end);
      try {
        return send.apply(this, args);
      } catch (error) {
        end();
        throw error;
      } finally {
        if (this.readyState === 4) end();
      }
    };
  }

  function pendingTimers(horizon, t) {
    let n = 0;
    let next = Number.POSITIVE_INFINITY;
    for (const [id, e] of timers) {
      if (t - e.due > STALE_MS) {
        timers.delete(id); // cleared in a way we did not see (or the page was stopped)
        continue;
      }
      if (e.due - e.root > horizon) continue;
      n += 1;
      next = Math.min(next, e.due);
    }
    return { n, next };
  }

  function pendingFrames(horizon, t) {
    if (document.visibilityState === "hidden") return 0;
    let n = 0;
    for (const root of frames.values()) if (t - root <= horizon) n += 1;
    return n;
  }

  /** Whether any tracked work is pending now. */
  function busyNow(horizon, t) {
    return pendingTimers(horizon, t).n + pendingFrames(horizon, t) + requests + runningAnimations() > 0;
  }

  /**
   * Finite animations seen running at the last check, and those found ended since, which count as
   * pending until the settle has waited a frame after it found them (`endedWaiting`): their end
   * events (transitionend, animationend) are dispatched in a rendering step, which may come after
   * the check that first sees them ended, and a handler of those events may change the page.
   */
  const seenRunning = new Set();
  const endedWaiting = new Set();

  function runningAnimations() {
    if (typeof document.getAnimations !== "function") return 0;
    let n = 0;
    const running = new Set();
    for (const a of document.getAnimations()) {
      if (a.playState !== "running" || !a.effect) continue;
      const timing = a.effect.getComputedTiming();
      if (Number.isFinite(timing.endTime) && (timing.localTime ?? 0) < timing.endTime) {
        n += 1;
        running.add(a);
      }
    }
    for (const a of seenRunning) if (!running.has(a)) endedWaiting.add(a);
    seenRunning.clear();
    for (const a of running) seenRunning.add(a);
    return n + endedWaiting.size;
  }

  const channel = new MessageChannel();
  const queued = [];
  channel.port1.onmessage = () => queued.shift()?.();
  /** Resolves in a fresh macrotask: every microtask queued before has run. */
  const macrotask = () =>
    new Promise((resolve) => {
      queued.push(resolve);
      rawPortPost.call(channel.port2, 0);
    });
  const sleep = (ms) => new Promise((resolve) => rawSetTimeout.call(window, resolve, ms));
  /**
   * One animation frame. A hidden page runs no frames: there 100 ms stand in for one. A visible page
   * gets up to 1 s, so a frame that a busy machine delays past 100 ms is still waited for (the layout
   * observers' callbacks run in it).
   */
  const frame = () =>
    new Promise((resolve) => {
      let done = false;
      const finish = () => {
        if (!done) {
          done = true;
          resolve();
        }
      };
      if (typeof rawRaf === "function") rawRaf.call(window, finish);
      rawSetTimeout.call(window, finish, document.visibilityState === "hidden" ? 100 : 1000);
    });

  /**
   * Waits until the page is quiet (see above). Returns { timedOut, ms, frames, pending }: `frames` the
   * animation frames it waited for (0: nothing had changed), `pending` what was still going on at the
   * cap (timers, frames, requests, animations, mutated).
   */
  async function settle(options) {
    const horizon = Number(options?.horizonMs ?? DEFAULTS.horizonMs);
    const max = Number(options?.maxMs ?? DEFAULTS.maxMs);
    horizonNow = horizon;
    const start = now();
    // Nothing changed since the last settle ended quiet (the action moved focus, typed into a field
    // without handlers, ...) and nothing is pending: the page is as quiet as it was, no frame needed;
    // nor a macrotask when the page posted no task since (see above).
    const unchanged = () =>
      mutations === quietAt && !scrolled && scrollAt === scrollNow() && !busyNow(horizon, now());
    let frames = 0;
    // A scroll's events may come a frame late (after the first frame's animation callbacks): a
    // settle that starts with a scroll since the last quiet one waits for two frames (the page's
    // first settle has nothing to compare the window's offsets with); so may the size and
    // intersection observers' callbacks, so a page that has them always gets two.
    const scrolledAtStart = scrolled || (scrollAt !== "" && scrollAt !== scrollNow());
    const twoFrames = scrolledAtStart || observesLayout;
    const quiet = (ms) => {
      postedAt = posted;
      return { timedOut: false, ms, frames };
    };
    if (!observesLayout) {
      if (posted === postedAt && unchanged()) return quiet(Math.round(now() - start));
      await macrotask();
      if (unchanged()) return quiet(Math.round(now() - start));
    }
    for (;;) {
      const before = mutations;
      // Animations found ended before this frame have had their rendering step after it.
      const ended = [...endedWaiting];
      await frame();
      for (const a of ended) endedWaiting.delete(a);
      frames += 1;
      await macrotask();
      const t = now();
      const timer = pendingTimers(horizon, t);
      const pending = {
        timers: timer.n,
        frames: pendingFrames(horizon, t),
        requests,
        animations: runningAnimations(),
        mutated: mutations !== before,
      };
      const busy = pending.timers + pending.frames + pending.requests + pending.animations > 0;
      const ms = Math.round(t - start);
      if (!busy && !pending.mutated && !(twoFrames && frames < 2)) {
        quietAt = mutations;
        scrolled = false;
        scrollAt = scrollNow();
        return quiet(ms);
      }
      if (t - start >= max) return { timedOut: true, ms, frames, pending };
      // Only timers left: sleep until the next one is due (frames come after it in the loop).
      const onlyTimers = pending.timers > 0 && pending.frames + pending.requests + pending.animations === 0;
      const wait = Math.min(timer.next - now(), start + max - now()) - 17;
      if (onlyTimers && !pending.mutated && wait > 0) await sleep(wait);
    }
  }

  /**
   * The page now shows a restored state (a snapshot's, written by the driver in the same task): its
   * DOM changes so far are the restore's own, not activity to wait out, so the next settle needs no
   * frame when nothing is pending, nothing scrolled and the page observes no layout (as after an
   * action that changed nothing). Work the restore armed (timers, frames, requests, animations,
   * posted tasks) is still waited for, as are changes made after this call. `scrolledState`: the
   * restored state has scroll offsets (their scroll events come in the next rendering step).
   */
  function markRestored(scrolledState) {
    observer.takeRecords();
    quietAt = mutations;
    if (scrolledState) scrolled = true;
  }

  Object.defineProperty(window, "__rhSettle", {
    enumerable: false,
    configurable: false,
    value: Object.freeze({
      settle,
      defaults: DEFAULTS,
      noteScroll: () => {
        scrolled = true;
      },
      markRestored,
    }),
  });
})();
