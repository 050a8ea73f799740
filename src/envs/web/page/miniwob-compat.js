/*
 * MiniWoB++ compatibility, installed into every page before its scripts (see page-agent.ts).
 *
 * MiniWoB++'s own core.js arms its episode timer with `setTimeout(end, core.EPISODE_MAX_TIME)`, and
 * the driver sets that limit to Infinity so that a slow policy never times out. Browsers clamp a
 * delay above 2^31-1 ms (Infinity included) to about 1 ms, so the episode would end at reset. Here a
 * delay above 2^31-1 ms (and +Infinity) means "never fires": the timer is armed with the largest
 * delay a browser keeps (2^31-1 ms, about 24.8 days), so it is a real timer with a real id that
 * `clearTimeout`/`clearInterval` cancel as usual. Every other call passes through unchanged (same
 * `this`, handler, extra arguments and return value); NaN or a missing delay stays 0, as in browsers.
 *
 * It wraps whatever `setTimeout`/`setInterval` are when it runs, so other wrappers (the page agent's
 * timer tracking) compose with it in either order.
 */
(() => {
  const w = window;
  if (w.__rhMiniwobCompat) return;
  const MAX_DELAY_MS = 2147483647;

  /** The delay a browser would honour for `delay`: one above 2^31-1 (or +Infinity) becomes 2^31-1. */
  function honoured(delay) {
    const ms = Number(delay);
    return ms > MAX_DELAY_MS ? MAX_DELAY_MS : delay;
  }

  function wrap(name) {
    const previous = w[name];
    if (typeof previous !== "function") return;
    const wrapped = function (handler, delay, ...args) {
      return previous.call(this, handler, honoured(delay), ...args);
    };
    Object.defineProperty(wrapped, "name", { value: name });
    w[name] = wrapped;
  }

  wrap("setTimeout");
  wrap("setInterval");
  Object.defineProperty(w, "__rhMiniwobCompat", { value: { maxDelayMs: MAX_DELAY_MS, honoured } });
})();
