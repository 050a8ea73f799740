import type { Random } from "../../core/random.ts";
import type { ChatMessage } from "../../llm/messages.ts";
import type { ExperienceBuffer } from "../experience-buffer.ts";
import type { KnowledgeDraft } from "../knowledge-entry.ts";
import type { KnowledgeTable } from "../knowledge-table.ts";
import { bootstrapMessages, type DescribeState, understandMessages } from "../llm-prompts.ts";
import type { PlayedEpisode } from "../play-episode.ts";
import { freshContinuations, type KnowledgeWriter } from "../writer.ts";

/** One knowledge write of a bootstrapping sweep, with the context it was computed from. */
export interface CapturedUpdate {
  key: string;
  mode: "understand" | "bootstrap";
  /** The update context [s_t, continuations, z_{s_t}, z_{s_{t+H}}] as a prompt. */
  prompt: ChatMessage[];
  writer: string;
  oldKnowledge: string | null;
  newKnowledge: string;
}

export interface SweepContext {
  table: KnowledgeTable;
  buffer: ExperienceBuffer;
  writer: KnowledgeWriter;
  budget: { n: number; hMc: number; hTd: number };
  /** How the captured prompts name a state (default: the key). */
  describeState?: DescribeState;
}

/** The distinct states of `episodes`, in order of first appearance. */
export function distinctStates(episodes: ReadonlyArray<PlayedEpisode>): string[] {
  const seen = new Set<string>();
  for (const e of episodes) for (const s of e.steps) seen.add(s.state);
  return [...seen];
}

/**
 * A uniform sample of round(fraction · |states|) states (at least one when there are any); fraction 1
 * keeps every state. Deterministic for the generator's seed.
 */
export function sampleStates(states: ReadonlyArray<string>, fraction: number, random: Random): Set<string> {
  if (fraction >= 1) return new Set(states);
  const k = states.length === 0 ? 0 : Math.max(1, Math.round(fraction * states.length));
  return new Set(random.shuffle(states).slice(0, k));
}

async function commit(
  context: SweepContext,
  key: string,
  epoch: number,
  expectedVersion: number,
  draft: KnowledgeDraft,
): Promise<boolean> {
  const result = await context.table.write({ key, epoch, expectedVersion, ...draft });
  return result.written;
}

/**
 * The fully bootstrapping sweep over one failed episode: backward from s_{T-1} to s_0, a Monte Carlo
 * update (N, H_mc) then a TD update (N, H_td) of each sampled state. Returns the writes it made, each
 * with its context as the LLM writer's prompt (the continuations the writer aggregates, i.e. those not
 * yet in the entry's provenance), so D_reflect teaches the same update whichever writer made it.
 */
export async function bootstrapEpisode(
  context: SweepContext,
  episode: PlayedEpisode,
  epoch: number,
  sample: ReadonlySet<string>,
): Promise<CapturedUpdate[]> {
  const { table, buffer, writer, budget } = context;
  const describe = context.describeState ?? ((key: string) => key);
  const out: CapturedUpdate[] = [];
  for (let t = episode.steps.length - 1; t >= 0; t--) {
    const key = episode.steps[t]?.state;
    if (key === undefined || !sample.has(key)) continue;

    const mcPrior = table.read(key);
    const mc = buffer.continuations(key, { n: budget.n, h: budget.hMc, scope: "all" });
    const mcPrompt = understandMessages(key, mcPrior, freshContinuations(mcPrior, mc, "mc"), describe);
    const mcDraft = await writer.understand({ key, epoch, prior: mcPrior, continuations: mc });
    if (mcDraft && (await commit(context, key, epoch, mcPrior?.version ?? 0, mcDraft))) {
      out.push({
        key,
        mode: "understand",
        prompt: mcPrompt,
        writer: mcDraft.writer,
        oldKnowledge: mcPrior?.text ?? null,
        newKnowledge: mcDraft.text,
      });
    }

    const tdPrior = table.read(key);
    const td = buffer.continuations(key, { n: budget.n, h: budget.hTd, scope: "all" });
    const successor = (k: string) => table.read(k);
    const tdPrompt = bootstrapMessages(
      key,
      tdPrior,
      freshContinuations(tdPrior, td, "td"),
      successor,
      describe,
    );
    const tdDraft = await writer.bootstrap({ key, epoch, prior: tdPrior, continuations: td, successor });
    if (tdDraft && (await commit(context, key, epoch, tdPrior?.version ?? 0, tdDraft))) {
      out.push({
        key,
        mode: "bootstrap",
        prompt: tdPrompt,
        writer: tdDraft.writer,
        oldKnowledge: tdPrior?.text ?? null,
        newKnowledge: tdDraft.text,
      });
    }
  }
  return out;
}
