import { z } from "zod";
import type { ChatMessage } from "../llm/messages.ts";
import type { Continuation, Transition } from "./experience-buffer.ts";
import type { KnowledgeEntry } from "./knowledge-entry.ts";

/** What the model must answer for every knowledge prompt. */
export const LlmKnowledgeOutputSchema = z.object({
  skip: z.boolean(),
  knowledge: z.string().default(""),
  values: z.record(z.string(), z.number().finite()).optional(),
});
export type LlmKnowledgeOutput = z.infer<typeof LlmKnowledgeOutputSchema>;

export const KNOWLEDGE_SYSTEM_PROMPT = [
  "You maintain stateful knowledge for an agent acting in an environment.",
  "Knowledge about a state is a short declarative summary: what each action tends to lead to from this state",
  "(risks, rewards, likely outcomes) and which action looks best.",
  'Answer with one JSON object and nothing else: {"skip": boolean, "knowledge": string, "values": {action: number}}.',
  'Set "skip" to true (and leave "knowledge" empty) when the experience adds nothing to the current knowledge.',
  '"values" is optional: your estimate in [-1, 1] of each action\'s value from this state.',
].join(" ");

/** How a prompt names states; default: the key itself. */
export type DescribeState = (key: string) => string;

function priorText(entry: KnowledgeEntry | undefined): string {
  return entry ? entry.text : "(none yet)";
}

/** One transition as a line: `at (0,1) moved down -> (1,1), reward 0, fell into a hole`. */
export function describeTransition(t: Transition, describe: DescribeState): string {
  const end = t.terminal ? (t.reward > 0 ? ", reached the goal" : ", episode ended (failure)") : "";
  const cut = t.truncated ? ", ran out of steps" : "";
  const slip = t.slipped === undefined ? "" : t.slipped ? " (slipped)" : "";
  return `at ${describe(t.state)} moved ${t.actionLabel}${slip} -> ${describe(t.nextState)}, reward ${t.reward}${end}${cut}`;
}

function continuationBlock(continuations: ReadonlyArray<Continuation>, describe: DescribeState): string {
  if (continuations.length === 0) return "(no continuations)";
  return continuations
    .map((c, i) => {
      const steps = c.transitions.map((t, k) => `  ${k + 1}. ${describeTransition(t, describe)}`);
      return [`Continuation ${i + 1} (ended: ${c.end}):`, ...steps].join("\n");
    })
    .join("\n");
}

const ANSWER = 'Answer with the JSON object {"skip": ..., "knowledge": ..., "values": {...}}.';

/** The system prompt and one user turn of the given lines, ending with the answer format. */
function knowledgePrompt(lines: ReadonlyArray<string>): ChatMessage[] {
  return [
    { role: "system", content: KNOWLEDGE_SYSTEM_PROMPT },
    { role: "user", content: [...lines, ANSWER].join("\n") },
  ];
}

/** The state and what is known about it. */
function stateLines(key: string, prior: KnowledgeEntry | undefined, describe: DescribeState): string[] {
  return [`State: ${describe(key)}`, `Current knowledge about this state: ${priorText(prior)}`];
}

/** (a) Monte Carlo state understanding from up to N continuations of up to H steps. */
export function understandMessages(
  key: string,
  prior: KnowledgeEntry | undefined,
  continuations: ReadonlyArray<Continuation>,
  describe: DescribeState,
): ChatMessage[] {
  return knowledgePrompt([
    ...stateLines(key, prior, describe),
    "Experience from this state (continuations from the buffer):",
    continuationBlock(continuations, describe),
    "Update the knowledge about this state from these outcomes (Monte Carlo update).",
  ]);
}

/** (b) TD bootstrapping: one-step continuations plus what is known about each successor. */
export function bootstrapMessages(
  key: string,
  prior: KnowledgeEntry | undefined,
  continuations: ReadonlyArray<Continuation>,
  successor: (key: string) => KnowledgeEntry | undefined,
  describe: DescribeState,
): ChatMessage[] {
  const successors = [
    ...new Set(continuations.flatMap((c) => c.transitions.slice(-1).map((t) => t.nextState))),
  ];
  const known = successors.map((s) => `- ${describe(s)}: ${priorText(successor(s))}`);
  return knowledgePrompt([
    ...stateLines(key, prior, describe),
    "One-step experience from this state:",
    continuationBlock(continuations, describe),
    "Knowledge about the successor states:",
    ...(known.length > 0 ? known : ["(none)"]),
    "Update the knowledge about this state by bootstrapping from the successors' knowledge (TD update).",
  ]);
}

/** (c) Reflexion-style critique and plan from one whole trajectory. */
export function reflectMessages(
  transitions: ReadonlyArray<Transition>,
  outcome: { success: boolean; return: number },
  prior: KnowledgeEntry | undefined,
  describe: DescribeState,
): ChatMessage[] {
  return knowledgePrompt([
    `Trajectory (${outcome.success ? "succeeded" : "failed"}, return ${outcome.return}):`,
    ...transitions.map((t, i) => `${i + 1}. ${describeTransition(t, describe)}`),
    `Current plan from earlier reflections: ${priorText(prior)}`,
    "Critique this trajectory and write a plan for the next attempt of the same task.",
    'Put the plan in "knowledge"; "values" may rate the first action.',
  ]);
}
