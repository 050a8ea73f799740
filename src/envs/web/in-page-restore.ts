import { EnvironmentError, type Observation } from "../../core/index.ts";
import type { Episode } from "./episode.ts";
import type { EpisodeIO } from "./episode-io.ts";
import { changedParts } from "./fingerprint-diff.ts";
import type { EpisodePerturbations } from "./perturbations.ts";
import type { SnapshotState } from "./snapshot-state.ts";
import type { WebPerturbable } from "./web-perturbable.ts";
import { restoreInto, stateFingerprintOf } from "./web-snapshot.ts";

/**
 * Cheap branching: a snapshot restored into the live page of the same task and seed, without a new
 * browser context or a page load (a new context spawns a renderer and loads the page: most of a
 * restore's cost). The page's own `rehearsalRestoreState` rebuilds its whole state from the saved
 * value and the driver restores the rest by DOM path (web-snapshot.ts `restoreInto`), so a page
 * that was stepped elsewhere comes back to the saved state; the reached fingerprint must equal the
 * one recorded in the snapshot, otherwise the caller restores on a fresh page as before.
 *
 * Perturbations of the live episode are first taken out of the page (perturbations.ts `clear`: the
 * dialog dismissed, the noise tabs closed, the layer and its hosts removed, the viewport reset), so
 * that the snapshot's own (or none) are re-created as on a freshly reset page, in the same order.
 */

/**
 * Whether `ep`'s page can take `state` in place: same task and seed, entry page, nothing open but it
 * and the episode's noise tabs, no dialog about to open (one open is the noise layer's, dismissed).
 */
export function canRestoreInPage(
  io: EpisodeIO,
  ep: Episode,
  target: { taskId: string; seed: number },
  state: SnapshotState,
): boolean {
  const h = ep.handle;
  return (
    state.fingerprint !== undefined &&
    ep.task.id === target.taskId &&
    ep.seed === target.seed &&
    !h.dead &&
    !h.unresponsive &&
    (ep.frozen === null || ep.noise?.dialogOpen === true) &&
    h.holdDialog === null &&
    h.allowPages === 0 &&
    !h.page.isClosed() &&
    h.context.pages().length === 1 + (ep.noise?.openTabs ?? 0) &&
    io.relativeUrl(h.page.url()) === state.url
  );
}

/** A new episode on `ep`'s page, as a fresh reset starts one (no steps, noise, dialogs or blocked requests). */
export function episodeOnSamePage(ep: Episode): Episode {
  ep.handle.dialogs.length = 0;
  ep.handle.blocked.count = 0;
  return {
    task: ep.task,
    seed: ep.seed,
    handle: ep.handle,
    steps: 0,
    ended: null,
    last: null,
    noise: null,
    frozen: null,
  };
}

/** An in-page restore: the observation, or why it missed (the caller then restores on a fresh page). */
export type InPageOutcome = { observation: Observation } | { missed: string };

/**
 * Restores `state` into `next` (from `episodeOnSamePage`) and checks the fingerprint, after taking
 * `previous` (the replaced episode's perturbations) out of the page. It misses when the page did not
 * reach the recorded state (the changed fingerprint parts are named) or failed while trying (a fresh
 * page then reports what a fresh page does).
 */
export async function restoreInPage(
  io: EpisodeIO,
  perturbable: WebPerturbable,
  next: Episode,
  state: SnapshotState,
  previous: EpisodePerturbations | null = null,
): Promise<InPageOutcome> {
  let missed: string;
  try {
    if (previous) await io.guard(next, "restore", () => previous.clear());
    const observation = await restoreInto(io, perturbable, next, state);
    const reached = await stateFingerprintOf(io, next);
    if (reached.fingerprint === state.fingerprint) return { observation };
    missed = `changed: ${changedParts(state.fingerprintParts ?? {}, reached.parts).join(", ")}`;
  } catch (error) {
    if (!(error instanceof EnvironmentError)) throw error;
    missed = error.code;
  }
  next.handle.blocked.count = 0;
  // The fresh page's restart then closes what is left of either's noise tabs and, when it is not the
  // configured one, resets the viewport (`previous.clear()` dismissed its dialog first thing).
  return { missed };
}
