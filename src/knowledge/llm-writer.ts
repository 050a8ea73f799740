import { z } from "zod";
import type { ChatClient } from "../llm/client.ts";
import { extractJsonCandidates, fencedBlocks } from "../llm/json-extract.ts";
import type { ChatMessage } from "../llm/messages.ts";
import { type KnowledgeDraft, mergeProvenance, type Provenance } from "./knowledge-entry.ts";
import {
  bootstrapMessages,
  type DescribeState,
  type LlmKnowledgeOutput,
  LlmKnowledgeOutputSchema,
  reflectMessages,
  understandMessages,
} from "./llm-prompts.ts";
import { freshContinuations, type KnowledgeWriter, updateProvenance } from "./writer.ts";

export const LLM_WRITER = "llm";

/** `fields` of an entry the LLM writer wrote. */
export const LlmKnowledgeFieldsSchema = z.object({
  kind: z.literal("llm"),
  mode: z.enum(["understand", "bootstrap", "reflect"]),
  values: z.record(z.string(), z.number()).nullable(),
});
export type LlmKnowledgeFields = z.infer<typeof LlmKnowledgeFieldsSchema>;

/** Action values of an LLM-written entry (undefined for other entries or entries without values). */
export function llmActionValues(fields: unknown): Record<string, number> | undefined {
  const parsed = LlmKnowledgeFieldsSchema.safeParse(fields);
  return parsed.success && parsed.data.values ? parsed.data.values : undefined;
}

export type LlmParseResult = { ok: true; output: LlmKnowledgeOutput } | { ok: false; error: string };

/**
 * Tolerant parse of a model answer: the JSON object may sit in a ``` fence or inside prose. The first
 * candidate that matches `LlmKnowledgeOutputSchema` wins; a non-skip answer needs non-empty knowledge.
 */
export function parseKnowledgeOutput(text: string): LlmParseResult {
  const regions = [...fencedBlocks(text), text];
  let firstError = "no JSON object in the answer";
  let sawCandidate = false;
  for (const region of regions) {
    for (const candidate of extractJsonCandidates(region)) {
      if (candidate.kind !== "value") {
        if (!sawCandidate) firstError = `${candidate.kind} JSON: ${candidate.text.slice(0, 80)}`;
        sawCandidate = true;
        continue;
      }
      const parsed = LlmKnowledgeOutputSchema.safeParse(candidate.value);
      if (!parsed.success) {
        if (!sawCandidate)
          firstError = `does not match {skip, knowledge, values}: ${parsed.error.issues[0]?.message ?? "invalid"}`;
        sawCandidate = true;
        continue;
      }
      if (!parsed.data.skip && parsed.data.knowledge.trim() === "") {
        if (!sawCandidate) firstError = "knowledge is empty but skip is false";
        sawCandidate = true;
        continue;
      }
      return { ok: true, output: parsed.data };
    }
  }
  return { ok: false, error: firstError };
}

/** What happened to one writer call. */
export interface LlmWriteOutcome {
  mode: "understand" | "bootstrap" | "reflect";
  key: string;
  status: "draft" | "skip" | "malformed" | "no-experience";
  /** The model's raw answer (kept for malformed ones especially). */
  raw: string;
  error?: string;
}

export interface LlmWriterCounts {
  calls: number;
  drafts: number;
  skipped: number;
  malformed: number;
}

export interface LlmKnowledgeWriter extends KnowledgeWriter {
  /** Every call's outcome, in call order. */
  outcomes(): ReadonlyArray<LlmWriteOutcome>;
  counts(): LlmWriterCounts;
}

export interface LlmWriterOptions {
  client: ChatClient;
  /** How prompts name a state (default: the key). */
  describeState?: DescribeState;
  /** Sampling temperature (default 0: knowledge updates are deterministic where the server is). */
  temperature?: number;
  maxTokens?: number;
  /** Sent as the request seed (when the client config sends seeds). */
  seed?: number;
}

/**
 * A `KnowledgeWriter` backed by an OpenAI-compatible chat model. Each update asks the model for
 * `{"skip", "knowledge", "values"}`; a skip is discarded (no write), an answer that does not parse is
 * counted and discarded with its raw text kept in `outcomes()`. Provider failures propagate as the
 * client's typed `ProviderError`.
 */
export function createLlmWriter(options: LlmWriterOptions): LlmKnowledgeWriter {
  const describe = options.describeState ?? ((key: string) => key);
  const temperature = options.temperature ?? 0;
  const log: LlmWriteOutcome[] = [];
  const counts: LlmWriterCounts = { calls: 0, drafts: 0, skipped: 0, malformed: 0 };

  async function ask(
    mode: LlmWriteOutcome["mode"],
    key: string,
    messages: ChatMessage[],
  ): Promise<LlmKnowledgeOutput | null> {
    const result = await options.client.complete({
      messages,
      temperature,
      ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    });
    counts.calls += 1;
    const raw = result.texts[0] ?? "";
    const parsed = parseKnowledgeOutput(raw);
    if (!parsed.ok) {
      counts.malformed += 1;
      log.push({ mode, key, status: "malformed", raw, error: parsed.error });
      return null;
    }
    if (parsed.output.skip) {
      counts.skipped += 1;
      log.push({ mode, key, status: "skip", raw });
      return null;
    }
    counts.drafts += 1;
    log.push({ mode, key, status: "draft", raw });
    return parsed.output;
  }

  const draftOf = (mode: LlmWriteOutcome["mode"], output: LlmKnowledgeOutput, provenance: Provenance) => {
    const values = output.values
      ? Object.fromEntries(
          Object.keys(output.values)
            .sort()
            .map((k) => [k, output.values?.[k] as number]),
        )
      : null;
    const fields: LlmKnowledgeFields = { kind: "llm", mode, values };
    const draft: KnowledgeDraft = { writer: LLM_WRITER, fields, text: output.knowledge.trim(), provenance };
    return draft;
  };

  return {
    name: LLM_WRITER,
    outcomes: () => log,
    counts: () => ({ ...counts }),

    async understand(context) {
      const used = freshContinuations(context.prior, context.continuations, "mc");
      if (used.length === 0) return null;
      const messages = understandMessages(context.key, context.prior, used, describe);
      const output = await ask("understand", context.key, messages);
      return output ? draftOf("understand", output, updateProvenance(context.prior, used, "mc")) : null;
    },

    async bootstrap(context) {
      const used = freshContinuations(context.prior, context.continuations, "td");
      if (used.length === 0) return null;
      const messages = bootstrapMessages(context.key, context.prior, used, context.successor, describe);
      const output = await ask("bootstrap", context.key, messages);
      return output ? draftOf("bootstrap", output, updateProvenance(context.prior, used, "td")) : null;
    },

    async reflectTrajectory(context) {
      const { episode } = context;
      if (episode.transitions.length === 0) return [];
      const key = context.pathKey(0);
      const prior = context.prior(key);
      if (prior?.provenance.episodeIds.includes(episode.id)) return [];
      const messages = reflectMessages(episode.transitions, episode, prior, describe);
      const output = await ask("reflect", key, messages);
      if (!output) return [];
      const provenance = mergeProvenance(prior?.provenance, {
        episodeIds: [episode.id],
        continuationIds: [],
      });
      return [{ key, expectedVersion: prior?.version ?? 0, draft: draftOf("reflect", output, provenance) }];
    },
  };
}
