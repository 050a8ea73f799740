import { z } from "zod";
import type { Action } from "../core/action.ts";
import { describeIssues, KnowledgeEpisodeError, KnowledgeOptionsError } from "./errors.ts";

/** One recorded step (s, a, r, terminal, s'), keyed by structural state keys. */
export interface TransitionInput {
  state: string;
  action: Action;
  /** `actionLabel(action)`: what the knowledge fields are keyed by. */
  actionLabel: string;
  reward: number;
  /** The episode ended by the task's own logic (goal, hole). */
  terminal: boolean;
  /** The episode was cut by its horizon after this step. */
  truncated: boolean;
  nextState: string;
  /** Whether the move slid sideways (FrozenLake `info.slipped`), when known. */
  slipped?: boolean;
  /** Whether the move had the lowest hole-fall probability (FrozenLake `info.goodMove`), when known. */
  goodMove?: boolean;
}

export interface Transition extends TransitionInput {
  /** `<episodeId>#<index>`. */
  id: string;
  episodeId: string;
  epoch: number;
  index: number;
}

export interface BufferedEpisode {
  id: string;
  taskId: string;
  epoch: number;
  transitions: ReadonlyArray<TransitionInput>;
}

/**
 * Up to H consecutive transitions of one episode starting at `root`. It ends early at the episode's end,
 * or right after a transition that comes back to `root` (the rest is its own suffix from `root`).
 */
export interface Continuation {
  /** `<first transition id>+<length>`. */
  id: string;
  root: string;
  episodeId: string;
  taskId: string;
  epoch: number;
  transitions: ReadonlyArray<Transition>;
  end: "terminal" | "truncated" | "horizon" | "revisit" | "episode-end";
}

export const ContinuationQuerySchema = z.object({
  n: z.number().int().positive(),
  h: z.number().int().positive(),
  scope: z.enum(["all", "last-epoch"]).default("all"),
});
export type ContinuationQuery = z.input<typeof ContinuationQuerySchema>;

interface StoredEpisode {
  seq: number;
  episode: BufferedEpisode;
  transitions: Transition[];
}

interface SuffixRef {
  stored: StoredEpisode;
  index: number;
}

/** The first index whose epoch is greater than `epoch` (refs are sorted ascending by epoch). */
function insertionPoint(refs: ReadonlyArray<SuffixRef>, epoch: number): number {
  let lo = 0;
  let hi = refs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((refs[mid] as SuffixRef).stored.episode.epoch <= epoch) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Every suffix of every episode, indexed by the state it starts from. */
export class ExperienceBuffer {
  private readonly episodes: StoredEpisode[] = [];
  private readonly byState = new Map<string, SuffixRef[]>();
  private readonly byId = new Map<string, StoredEpisode>();
  private latestEpoch = -1;

  get episodeCount(): number {
    return this.episodes.length;
  }

  get transitionCount(): number {
    let n = 0;
    for (const e of this.episodes) n += e.transitions.length;
    return n;
  }

  /** The highest epoch added so far (-1 when empty). */
  get lastEpoch(): number {
    return this.latestEpoch;
  }

  /** Adds an episode; its transitions must chain (each `state` is the previous `nextState`). */
  add(episode: BufferedEpisode): void {
    if (this.byId.has(episode.id))
      throw new KnowledgeEpisodeError(episode.id, "an episode with this id is already in the buffer");
    episode.transitions.forEach((t, i) => {
      const prev = episode.transitions[i - 1];
      if (prev && prev.nextState !== t.state) {
        throw new KnowledgeEpisodeError(
          episode.id,
          `step ${i} starts at "${t.state}" but step ${i - 1} ended at "${prev.nextState}"`,
        );
      }
    });
    const stored: StoredEpisode = {
      seq: this.episodes.length,
      episode,
      transitions: episode.transitions.map((t, index) => ({
        ...t,
        id: `${episode.id}#${index}`,
        episodeId: episode.id,
        epoch: episode.epoch,
        index,
      })),
    };
    this.episodes.push(stored);
    this.byId.set(episode.id, stored);
    this.latestEpoch = Math.max(this.latestEpoch, episode.epoch);
    // Each state's refs stay sorted so that reading them backwards gives the query order: ascending by
    // epoch, then by episode (added later = later), then by step index descending within an episode.
    const byStateOfEpisode = new Map<string, SuffixRef[]>();
    stored.transitions.forEach((t, index) => {
      const list = byStateOfEpisode.get(t.state) ?? [];
      list.unshift({ stored, index });
      byStateOfEpisode.set(t.state, list);
    });
    for (const [state, list] of byStateOfEpisode) {
      const refs = this.byState.get(state) ?? [];
      refs.splice(insertionPoint(refs, episode.epoch), 0, ...list);
      this.byState.set(state, refs);
    }
  }

  /** Every transition of an episode, in order. */
  transitionsOf(episodeId: string): ReadonlyArray<Transition> {
    return this.byId.get(episodeId)?.transitions ?? [];
  }

  /**
   * Up to `n` continuations of up to `h` steps from `stateKey`. Order: most recent first (epoch
   * descending, then the episode added last first), ties (several visits in one episode) by id, i.e.
   * by step index ascending. `scope: "last-epoch"` keeps only episodes of the highest epoch added.
   */
  continuations(stateKey: string, query: ContinuationQuery): Continuation[] {
    const parsed = ContinuationQuerySchema.safeParse(query);
    if (!parsed.success)
      throw new KnowledgeOptionsError("Continuation query options", describeIssues(parsed.error.issues));
    const { n, h, scope } = parsed.data;
    const refs = this.byState.get(stateKey) ?? [];
    const out: Continuation[] = [];
    for (let i = refs.length - 1; i >= 0 && out.length < n; i--) {
      const ref = refs[i] as SuffixRef;
      if (scope === "last-epoch" && ref.stored.episode.epoch !== this.latestEpoch) break;
      out.push(this.continuationFrom(ref, h));
    }
    return out;
  }

  private continuationFrom(ref: SuffixRef, h: number): Continuation {
    const all = ref.stored.transitions;
    const root = (all[ref.index] as Transition).state;
    const out: Transition[] = [];
    let end: Continuation["end"] = "horizon";
    for (let i = ref.index; i < all.length; i++) {
      const t = all[i] as Transition;
      out.push(t);
      if (t.terminal) {
        end = "terminal";
        break;
      }
      if (t.truncated) {
        end = "truncated";
        break;
      }
      if (t.nextState === root) {
        end = "revisit";
        break;
      }
      if (i === all.length - 1) {
        end = "episode-end";
        break;
      }
      if (out.length >= h) {
        end = "horizon";
        break;
      }
    }
    const first = out[0] as Transition;
    return {
      id: `${first.id}+${out.length}`,
      root,
      episodeId: ref.stored.episode.id,
      taskId: ref.stored.episode.taskId,
      epoch: ref.stored.episode.epoch,
      transitions: out,
      end,
    };
  }
}
