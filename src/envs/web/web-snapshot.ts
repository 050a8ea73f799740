import { EnvironmentError, type EnvironmentSnapshot, type Observation, UserError } from "../../core/index.ts";
import type { Episode } from "./episode.ts";
import type { EpisodeIO } from "./episode-io.ts";
import { fingerprintWithDigests, type PartDigests } from "./fingerprint-diff.ts";
import { type SnapshotState, SnapshotStateSchema } from "./snapshot-state.ts";
import type { WebSuite } from "./suite.ts";
import { WEB_ERROR_CODES } from "./web-errors.ts";
import type { WebPerturbable } from "./web-perturbable.ts";

/**
 * Exact state of a web episode: the fingerprint's parts, snapshots and their restore, with the
 * perturbations in effect (noise layer, noise tabs, viewport, a native dialog held open). The web
 * environment delegates here.
 */

/**
 * What `fingerprint()` hashes: the port-free URL, the full axtree, the focused element, a DOM dump
 * with live form values, the task globals (without the time-scaled reward), whether the episode
 * ended and, once noise was applied, its state and the view of a noise tab that has the focus.
 */
export async function fingerprintPartsOf(io: EpisodeIO, ep: Episode): Promise<Record<string, unknown>> {
  // From now on the views read the DOM dump too: the next fingerprint costs no evaluation of its own.
  io.printWithView = true;
  const noise = ep.noise;
  if (!noise?.used) return io.pageFingerprint(ep);
  if (ep.frozen) return { ...ep.frozen.fingerprint, noise: noise.save(ep.frozen.layer) };
  const parts = await io.pageFingerprint(ep);
  const layer = await io.readLayer(ep, "fingerprint");
  const tab = noise.onNoiseTab ? await io.guard(ep, "fingerprint", () => noise.tabView()) : null;
  return { ...parts, noise: noise.save(layer), ...(tab ? { tab } : {}) };
}

/** The state fingerprint with the digests of its parts (fingerprint-diff.ts). */
export async function stateFingerprintOf(
  io: EpisodeIO,
  ep: Episode,
): Promise<{ fingerprint: string; parts: PartDigests }> {
  const { print, digests } = fingerprintWithDigests(await fingerprintPartsOf(io, ep));
  return { fingerprint: print, parts: digests };
}

/** The episode's snapshot; `env.snapshot_unsupported` when the page cannot be saved exactly. */
export async function snapshotOf(
  io: EpisodeIO,
  suite: WebSuite,
  family: string,
  ep: Episode,
): Promise<EnvironmentSnapshot> {
  const saved = ep.frozen ? ep.frozen.saved : await io.guard(ep, "snapshot", () => io.savePage(ep));
  const url = io.relativeUrl(saved.href);
  if (!saved.supported || url !== suite.entryPath(ep.task.id)) {
    throw new EnvironmentError(
      WEB_ERROR_CODES.snapshotUnsupported,
      `task ${ep.task.id} cannot be snapshot at ${url}: the page lacks rehearsalSaveState/rehearsalRestoreState ` +
        "or has navigated away from its entry page. Use replay (reset + prefix) instead.",
    );
  }
  const state: SnapshotState = {
    url,
    page: saved.page ?? null,
    extra: saved.extra,
    steps: ep.steps,
    ended: ep.ended,
    blocked: ep.handle.blocked.count,
  };
  const noise = ep.noise;
  if (noise?.used) {
    const layer = ep.frozen ? ep.frozen.layer : await io.readLayer(ep, "snapshot");
    state.noise = await io.guard(ep, "snapshot", () => noise.saveForSnapshot(layer));
  }
  const reached = await stateFingerprintOf(io, ep);
  state.fingerprint = reached.fingerprint;
  state.fingerprintParts = reached.parts;
  return { family, taskId: ep.task.id, seed: ep.seed, state: JSON.parse(JSON.stringify(state)) };
}

/** A snapshot's `state`, validated; `env.snapshot_invalid` when it is not a web snapshot's. */
export function parseSnapshotState(snapshot: EnvironmentSnapshot, family: string): SnapshotState {
  const parsed = SnapshotStateSchema.safeParse(snapshot.state);
  if (snapshot.family !== family || !parsed.success) {
    throw new UserError("env.snapshot_invalid", `not a web environment snapshot (family ${snapshot.family})`);
  }
  return parsed.data;
}

/**
 * Restores a saved state into `ep`, freshly reset on the snapshot's task and seed, and returns its
 * observation. Order: the page's own state, the noise layer (an in-flow host before <body> is part
 * of the element paths restored next), the page agent's element state, then the noise tabs (focus
 * where it was) and the viewport, so that the view read next is the one the agent saw; a native
 * dialog opens last (it blocks the page), after what it blocks was read (`freeze`).
 */
export async function restoreInto(
  io: EpisodeIO,
  perturbable: WebPerturbable,
  ep: Episode,
  s: SnapshotState,
): Promise<Observation> {
  const noiseState = s.noise;
  const noise = noiseState ? perturbable.of(ep) : null;
  ep.steps = s.steps;
  ep.ended = s.ended;
  ep.handle.blocked.count = s.blocked;
  await io.guard(ep, "restore", async () => {
    const page = `window.rehearsalRestoreState(${JSON.stringify(s.page)});`;
    const extra = `window.__rh.restoreExtra(${JSON.stringify(s.extra)})`;
    if (!(noise && noiseState)) {
      // One evaluation; the settle tracker then takes the restore's DOM changes as the page's state,
      // waiting a frame still when the page was or is now scrolled (scroll events come in it).
      await io.eval(
        ep,
        `(() => { const was = window.__rh.scrolledNow(); ${page} window.__rhSettle.markRestored(${extra}.scrolled || was); return true; })()`,
      );
      return;
    }
    await io.eval(ep, `(() => { ${page} return true; })()`);
    await noise.restoreLayer(noiseState);
    await io.eval(ep, `(() => { ${extra}; return true; })()`);
    await noise.restoreTabsAndViewport(noiseState);
  });
  const view = await io.view(ep, true);
  if (noise && noiseState?.dialog) {
    await io.freeze(ep, view);
    await io.guard(ep, "restore", () => noise.restoreDialog(noiseState));
  }
  return io.observe(ep, undefined, view);
}
