import { type Observation, UserError } from "../core/index.ts";
import { buildAgentMessages, type PromptOptions } from "../llm/index.ts";
import type { StepExample } from "./examples.ts";
import { type ExportedContext, exportedContext } from "./policy-context.ts";
import {
  type Provenance,
  type ShareGptRecord,
  ShareGptRecordSchema,
  type TrlRecord,
  TrlRecordSchema,
} from "./records.ts";

export type ObservationMode = "axtree" | "screenshot" | "both";

export interface FormatOptions {
  runId: string;
  /** What the prompt shows of each observation. */
  observation: ObservationMode;
  /** How many observations the prompt shows: the current one and n − 1 before it. */
  window: number;
  /** Previous actions listed in the prompt (as the llm policy does). */
  historyLength: number;
  /** Whether records carry the `weight` column. */
  weights: boolean;
  /** Path written for a screenshot (by content hash). */
  imagePath: (sha256: string) => string;
  /** Whether records carry the `context` field (`policy-context.ts`); default true. */
  context?: boolean;
  prompt?: Omit<PromptOptions, "historyLength" | "includeScreenshot">;
}

interface Rendered {
  system: string;
  userText: string;
  images: string[];
  target: string;
  metadata: Provenance;
  weight: number;
  context?: ExportedContext;
}

function forMode(o: Observation, mode: ObservationMode): Observation {
  const { screenshot: _shot, ...rest } = o;
  if (mode !== "screenshot") return rest;
  const { axtree: _ax, ...bare } = rest;
  return { ...bare, text: "(see the screenshot)" };
}

/**
 * Renders one example with the same prompt the llm policy uses at inference (system message, task,
 * current observation, previous actions), plus earlier observations when the window is larger than 1.
 */
function render(e: StepExample, options: FormatOptions): Rendered {
  const current = e.observations[e.observations.length - 1] as Observation;
  const [system, user] = buildAgentMessages(
    {
      task: e.task,
      observation: forMode(current, options.observation),
      history: e.history,
      stepIndex: e.stepIndex,
    },
    { ...(options.prompt ?? {}), historyLength: options.historyLength, includeScreenshot: false },
  );
  let userText = typeof user?.content === "string" ? user.content : "";
  const window = e.observations.slice(-options.window);
  if (options.observation !== "screenshot" && window.length > 1) {
    const earlier = window.slice(0, -1).map((o, i) => {
      const step = e.stepIndex - (window.length - 1) + i;
      return `Earlier observation (step ${step}):\n${o.axtree ?? o.text}`;
    });
    userText = `${earlier.join("\n\n")}\n\n${userText}`;
  }
  const images: string[] = [];
  if (options.observation !== "axtree") {
    for (const o of window) {
      if (!o.screenshot) {
        throw new UserError(
          "export.no_screenshot",
          `step ${e.stepIndex} of ${e.nodeId} has no screenshot; export with --observation axtree or search with screenshots on`,
        );
      }
      images.push(options.imagePath(o.screenshot.sha256));
    }
  }
  const taskWeight = e.weight;
  return {
    system: typeof system?.content === "string" ? system.content : "",
    userText,
    images,
    target: JSON.stringify(e.target),
    weight: taskWeight,
    ...(options.context === false
      ? {}
      : { context: exportedContext(e.task, e.stepIndex, current, e.history) }),
    metadata: {
      runId: options.runId,
      taskId: e.taskId,
      split: e.task.split,
      tier: e.task.tier ?? "-",
      nodeId: e.nodeId,
      stepIndex: e.stepIndex,
      leafIds: [...e.leafIds],
      taskSuccessRate: 0,
      taskUniqueSteps: 1,
    },
  };
}

export interface TaskStatsForRecords {
  successRate: number;
  uniqueSteps: number;
}

function withStats(m: Provenance, stats: TaskStatsForRecords | undefined): Provenance {
  return {
    ...m,
    taskSuccessRate: stats?.successRate ?? 0,
    taskUniqueSteps: Math.max(1, stats?.uniqueSteps ?? 1),
  };
}

/** A TRL conversational record (validated). Only the final assistant turn is a target. */
export function toTrlRecord(e: StepExample, options: FormatOptions, stats?: TaskStatsForRecords): TrlRecord {
  const r = render(e, options);
  const user: TrlRecord["messages"][number] =
    r.images.length === 0
      ? { role: "user", content: r.userText }
      : {
          role: "user",
          content: [
            ...r.images.map(() => ({ type: "image" as const })),
            { type: "text" as const, text: r.userText },
          ],
        };
  const record: TrlRecord = {
    messages: [{ role: "system", content: r.system }, user, { role: "assistant", content: r.target }],
    ...(r.images.length > 0 ? { images: r.images } : {}),
    ...(options.weights ? { weight: r.weight } : {}),
    metadata: withStats(r.metadata, stats),
    ...(r.context ? { context: r.context } : {}),
  };
  return TrlRecordSchema.parse(record);
}

/** A ShareGPT record for LLaMA-Factory (validated): `<image>` tokens in the human turn. */
export function toShareGptRecord(
  e: StepExample,
  options: FormatOptions,
  stats?: TaskStatsForRecords,
): ShareGptRecord {
  const r = render(e, options);
  const human = `${"<image>".repeat(r.images.length)}${r.images.length > 0 ? "\n" : ""}${r.userText}`;
  const record: ShareGptRecord = {
    conversations: [
      { from: "human", value: human },
      { from: "gpt", value: r.target },
    ],
    system: r.system,
    ...(r.images.length > 0 ? { images: r.images } : {}),
    ...(options.weights ? { weight: r.weight } : {}),
    metadata: withStats(r.metadata, stats),
    ...(r.context ? { context: r.context } : {}),
  };
  return ShareGptRecordSchema.parse(record);
}
