import { mergeProvenance } from "./knowledge-entry.ts";
import {
  type PathActionKnowledge,
  type PathKnowledgeFields,
  PathKnowledgeFieldsSchema,
} from "./knowledge-fields.ts";
import { fraction, round6, wilson } from "./statistics.ts";
import type { KeyedDraft, ReflectContext } from "./writer.ts";

export const TRAJECTORY_WRITER = "statistical-trajectory";

/** The summary of a path entry: "At step 3: down failed in 4/5 (80%) episodes; ...". */
export function describePathKnowledge(fields: PathKnowledgeFields): string {
  const parts = Object.values(fields.actions).map(
    (a) =>
      `action ${a.action} failed in ${fraction(a.failures, a.n)} episodes and succeeded in ${fraction(a.successes, a.n)}`,
  );
  return `At step ${fields.step}: ${parts.join("; ") || "no experience"}.`;
}

/**
 * The trajectory-reflection baseline: for every step t of one finished episode, the entry "step t"
 * (whatever state the episode was in) counts the episode's outcome under the action taken there. These are
 * the path-dependent heuristics that stateful knowledge replaces: a good move that slipped into a hole
 * is blamed, a blunder that got lucky is credited.
 */
export function reflectTrajectoryStatistically(context: ReflectContext): KeyedDraft[] {
  const { episode } = context;
  const out: KeyedDraft[] = [];
  episode.transitions.forEach((t, step) => {
    const key = context.pathKey(step);
    const prior = context.prior(key);
    if (prior?.provenance.episodeIds.includes(episode.id)) return;
    const parsed = PathKnowledgeFieldsSchema.safeParse(prior?.fields);
    const actions: Record<string, PathActionKnowledge> = parsed.success
      ? structuredClone(parsed.data.actions)
      : {};
    const a = actions[t.actionLabel] ?? {
      action: t.actionLabel,
      n: 0,
      successes: 0,
      failures: 0,
      successRate: 0,
      successLow: 0,
      successHigh: 1,
      q: null,
    };
    const n = a.n + 1;
    const successes = a.successes + (episode.success ? 1 : 0);
    const w = wilson(successes, n);
    actions[t.actionLabel] = {
      action: t.actionLabel,
      n,
      successes,
      failures: n - successes,
      successRate: round6(w.rate),
      successLow: round6(w.low),
      successHigh: round6(w.high),
      q: round6(((a.q ?? 0) * a.n + episode.return) / n),
    };
    const sorted: Record<string, PathActionKnowledge> = {};
    for (const name of Object.keys(actions).sort()) sorted[name] = actions[name] as PathActionKnowledge;
    const fields: PathKnowledgeFields = { kind: "path", step, actions: sorted };
    out.push({
      key,
      expectedVersion: prior?.version ?? 0,
      draft: {
        writer: TRAJECTORY_WRITER,
        fields,
        text: describePathKnowledge(fields),
        provenance: mergeProvenance(prior?.provenance, { episodeIds: [episode.id], continuationIds: [] }),
      },
    });
  });
  return out;
}
