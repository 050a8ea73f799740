/*
 * Rehearsal task core: a MiniWoB++-compatible episode protocol for task pages, written from scratch.
 * The full contract is in ../PROTOCOL.md. A plain classic script: no modules, no dependencies, no network.
 *
 * Page contract (MiniWoB layout):
 *   <div id="wrap"><div id="query"></div><div id="area"></div></div>
 *   <script src="/core/core.js"></script>
 *   function genProblem() { ... }            // builds the problem, may read Math.random
 *   window.onload = function () { core.startEpisode(); };
 */
(() => {
  const w = window;
  const nativeRandom = Math.random;

  // ---------------------------------------------------------------- seeded PRNG (mulberry32)
  let rngState = null;

  /** A 32-bit hash of any seed (numbers and strings alike, via String(seed)). */
  function hashSeed(seed) {
    const s = String(seed);
    let h = 1779033703 ^ s.length;
    for (let i = 0; i < s.length; i++) {
      h = Math.imul(h ^ s.charCodeAt(i), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^ (h >>> 16)) >>> 0;
  }

  function seededRandom() {
    rngState = (rngState + 0x6d2b79f5) >>> 0;
    let t = rngState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /**
   * Math.seedrandom(seed): replaces Math.random with a generator seeded by String(seed).
   * Without a seed, seeds from the browser's own random source. Returns the seed string.
   */
  Math.seedrandom = (seed) => {
    const s = seed === undefined ? String(Math.floor(nativeRandom() * 4294967296)) : String(seed);
    rngState = hashSeed(s);
    Math.random = seededRandom;
    return s;
  };

  // ---------------------------------------------------------------- globals read by the driver
  w.WOB_DONE_GLOBAL = false;
  w.WOB_REWARD_GLOBAL = 0;
  w.WOB_RAW_REWARD_GLOBAL = 0;
  w.WOB_REWARD_REASON = null;
  w.WOB_TASK_READY = false;

  const core = w.core || {};
  w.core = core;

  // ---------------------------------------------------------------- MiniWoB++ page globals
  /**
   * The URL's query parameters as an object (`?mode=test&any=1` → { mode: "test", any: "1" });
   * `+` reads as a space, a parameter without `=` maps to "".
   */
  core.QueryString = (() => {
    const out = {};
    const search = w.location?.search || "";
    for (const part of search.replace(/^\?/, "").split("&")) {
      if (part === "") continue;
      const at = part.indexOf("=");
      const key = at < 0 ? part : part.slice(0, at);
      const raw = at < 0 ? "" : part.slice(at + 1);
      try {
        out[key] = decodeURIComponent(raw.replace(/\+/g, " "));
      } catch {
        out[key] = raw;
      }
    }
    return out;
  })();
  /** Which problem distribution genProblem samples from: "default", or e.g. "train" / "test". */
  w.WOB_DATA_MODE = "default";
  core.setDataMode = (mode) => {
    w.WOB_DATA_MODE = String(mode);
  };
  if (core.QueryString.mode) core.setDataMode(core.QueryString.mode);
  /** Episodes ended so far on this page. */
  w.WOB_EPISODE_ID = 0;
  /** Structured fields some pages set in genProblem (read by their own getUtterance). */
  core.currentFields = null;

  /** Episode length in ms after which the episode ends with reward -1. <= 0 or non-finite: no limit. */
  core.EPISODE_MAX_TIME = 10000;
  /** Structured query fields; genProblem may set an object here (see getUtterance). */
  core.QUERY_FIELDS = null;
  core.episodeId = 0;

  let startMs = 0;
  let timer = null;
  const MAX_TIMER_MS = 2147483647;

  function nowMs() {
    return w.performance && typeof w.performance.now === "function" ? w.performance.now() : 0;
  }

  /** True when a driver (Rehearsal) controls the page; it then calls startEpisodeReal itself. */
  core.isManaged = () => !!w.__REHEARSAL__?.managed;

  function clearTimer() {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
  }

  /** Called by pages on load. Managed: does nothing (the driver starts the episode). Otherwise starts it. */
  core.startEpisode = () => {
    if (core.isManaged()) return;
    core.startEpisodeReal();
  };

  /** Resets the globals, calls the page's genProblem(), starts the episode timer, sets WOB_TASK_READY. */
  core.startEpisodeReal = () => {
    clearTimer();
    w.WOB_TASK_READY = false;
    w.WOB_DONE_GLOBAL = false;
    w.WOB_REWARD_GLOBAL = 0;
    w.WOB_RAW_REWARD_GLOBAL = 0;
    w.WOB_REWARD_REASON = null;
    core.QUERY_FIELDS = null;
    core.episodeId += 1;
    const shown = document.getElementById("rehearsal-result");
    if (shown?.parentNode) shown.parentNode.removeChild(shown);
    if (typeof w.genProblem === "function") w.genProblem();
    startMs = nowMs();
    const max = Number(core.EPISODE_MAX_TIME);
    if (Number.isFinite(max) && max > 0 && max <= MAX_TIMER_MS) {
      const id = core.episodeId;
      timer = setTimeout(() => {
        if (core.episodeId === id) core.endEpisode(-1, false, "timed out");
      }, max);
    }
    w.WOB_TASK_READY = true;
  };

  /** Milliseconds since the episode started. */
  core.elapsedMs = () => nowMs() - startMs;

  /**
   * Ends the episode. Only the first call per episode counts (later calls return false).
   * WOB_RAW_REWARD_GLOBAL = reward; WOB_REWARD_GLOBAL = reward scaled by the time left when
   * timeProportional and reward > 0; WOB_REWARD_REASON = reason (or null).
   */
  core.endEpisode = (reward, timeProportional, reason) => {
    if (w.WOB_DONE_GLOBAL) return false;
    let raw = Number(reward);
    if (!Number.isFinite(raw)) raw = 0;
    let scaled = raw;
    const max = Number(core.EPISODE_MAX_TIME);
    if (timeProportional && raw > 0 && Number.isFinite(max) && max > 0) {
      scaled = raw * Math.max(0, 1 - core.elapsedMs() / max);
    }
    clearTimer();
    w.WOB_RAW_REWARD_GLOBAL = raw;
    w.WOB_REWARD_GLOBAL = scaled;
    w.WOB_REWARD_REASON = reason === undefined ? null : reason;
    w.WOB_EPISODE_ID += 1;
    w.WOB_DONE_GLOBAL = true;
    if (!core.isManaged()) showResult(raw, reason);
    return true;
  };

  function showResult(raw, reason) {
    const el = document.createElement("div");
    el.id = "rehearsal-result";
    el.textContent = `Reward: ${raw}${reason ? ` (${reason})` : ""}`;
    document.body.appendChild(el);
    setTimeout(core.startEpisodeReal, 1500);
  }

  function queryText() {
    const q = document.getElementById("query");
    return q ? (q.textContent || "").replace(/\s+/g, " ").trim() : "";
  }

  /**
   * The instruction: the whitespace-collapsed text of #query. When genProblem set core.QUERY_FIELDS
   * to an object, returns { utterance, fields } instead (fields: string keys to string values).
   */
  core.getUtterance = () => {
    const fields = core.QUERY_FIELDS;
    if (fields && typeof fields === "object") {
      const out = {};
      for (const k in fields) {
        if (Object.hasOwn(fields, k)) out[k] = String(fields[k]);
      }
      return { utterance: queryText(), fields: out };
    }
    return queryText();
  };

  // ---------------------------------------------------------------- random helpers (use Math.random)
  /** Integer in [min, max). */
  core.randi = (min, max) => Math.floor(Math.random() * (max - min)) + min;
  /** Float in [min, max). */
  core.randf = (min, max) => Math.random() * (max - min) + min;
  core.sample = (items) => items[Math.floor(Math.random() * items.length)];
  /** Shuffles in place (Fisher-Yates) and returns the array. */
  core.shuffle = (items) => {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  };
  core.flipCoin = (p) => Math.random() < (p === undefined ? 0.5 : p);
  /** d[key] when present, else def. */
  core.getOpt = (d, key, def) => (d && d[key] !== undefined ? d[key] : def);

  /** The PRNG state (a uint32, or null before seeding); used by exact snapshots. */
  core.getRandomState = () => rngState;
  core.setRandomState = (state) => {
    if (state === null || state === undefined) return;
    rngState = state >>> 0;
    Math.random = seededRandom;
  };

  // A driver may announce the seed before the page runs (init script); seed at once so that any
  // Math.random call during page load is already deterministic.
  if (w.__REHEARSAL__ && w.__REHEARSAL__.seed !== undefined) Math.seedrandom(w.__REHEARSAL__.seed);
})();
