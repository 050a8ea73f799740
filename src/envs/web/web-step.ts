import { type Action, type ActionError, ActionSchema, type StepResult } from "../../core/index.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { Episode } from "./episode.ts";
import type { EpisodeIO } from "./episode-io.ts";
import { scoreGlobals } from "./score.ts";
import type { WebPerturbable } from "./web-perturbable.ts";

/** A step after the episode ended: the last observation again, with an `episode_ended` error. */
export function endedStep(ep: Episode, last: NonNullable<Episode["last"]>): StepResult {
  const observation = {
    ...last,
    error: {
      code: "episode_ended",
      message: `the episode has ended (${ep.ended}); reset to start another`,
    },
  };
  return {
    observation,
    reward: 0,
    terminated: ep.ended !== "truncated",
    truncated: ep.ended === "truncated",
    info: {},
  };
}

/**
 * One step of a live episode: the action (validated) through the perturbations to the page, the page
 * settles and is observed; the episode ends when the page says done, on `done`/`fail`, or at the
 * task's `maxSteps` (truncated, when `enforceMaxSteps`). The terminal step's reward is the verifier's.
 */
export async function stepEpisode(
  io: EpisodeIO,
  perturbable: WebPerturbable,
  config: WebEnvironmentConfig,
  ep: Episode,
  action: Action,
  /** Runs when the action has been performed (the environment's step count). */
  onStepped: () => void,
): Promise<StepResult> {
  const parsed = ActionSchema.safeParse(action);
  const error: ActionError | null = parsed.success
    ? await perturbable.act(ep, parsed.data)
    : { code: "invalid_action", message: parsed.error.issues[0]?.message ?? "invalid action" };
  ep.steps += 1;
  onStepped();
  const view = await io.view(ep, true);
  if (view.globals.done) ep.ended = "page";
  else if (!error && (action.type === "done" || action.type === "fail")) ep.ended = action.type;
  const limit = ep.task.maxSteps;
  let truncated = false;
  if (ep.ended === null && config.enforceMaxSteps && limit !== undefined && ep.steps >= limit) {
    ep.ended = "truncated";
    truncated = true;
  }
  const terminated = ep.ended !== null && !truncated;
  const score = scoreGlobals(view.globals, ep.task);
  const observation = await io.observe(ep, error ?? undefined, view);
  return {
    observation,
    reward: terminated ? score.reward : 0,
    terminated,
    truncated,
    info: {
      step: ep.steps,
      rawReward: view.globals.rawReward,
      wobDone: view.globals.done,
      reason: view.globals.reason,
      blockedRequests: ep.handle.blocked.count,
      ...(ep.handle.blocked.urls.length > 0 ? { blockedUrls: [...ep.handle.blocked.urls] } : {}),
      ...(error ? { actionError: error.code } : {}),
      ...(view.settle?.timedOut ? { settleTimedOut: true, settlePending: view.settle.pending } : {}),
    },
  };
}
