import type { Environment, Policy, Runtime } from "../core/index.ts";
import type { RunStore } from "../store/index.ts";
import type { RunSession } from "./run-session.ts";

/** What the rollout and evaluation loops take from a session: its first environment, runtime, store and stop signal. */
export interface EpisodeDeps<F> {
  env: Environment;
  policy: Policy;
  runtime: Runtime;
  store: RunStore;
  signal: AbortSignal;
  onEpisode?: F;
}

/** The loop dependencies of `session` for `policy`, with the command's per-episode callback when it has one. */
export function episodeDeps<F>(session: RunSession, policy: Policy, onEpisode?: F): EpisodeDeps<F> {
  return {
    env: session.env,
    policy,
    runtime: session.runtime,
    store: session.store,
    signal: session.signal,
    ...(onEpisode ? { onEpisode } : {}),
  };
}
