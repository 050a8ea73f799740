import { canonicalJson, type StepRecord, type Task, type Trajectory } from "../../core/index.ts";
import type { ChatMessage } from "../../llm/index.ts";
import type { JudgeOptions } from "./judgment-schema.ts";

/** The judge's instructions (the system message of every judge call). */
export const JUDGE_SYSTEM_PROMPT = [
  "You judge whether an agent completed a task in an environment.",
  "You see the task, the agent's steps (each observation and the action taken) and the final observation.",
  "Decide from this evidence only. An episode without clear evidence that the task was completed is not a success.",
  'Reply with exactly one JSON object and nothing else: {"success": true or false, "reason": "one short sentence"}',
].join("\n");

/** `text` cut to at most `max` characters: its head and tail with the elided length between. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (n: number) => `\n…[${n} characters elided]…\n`;
  const keep = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  return `${text.slice(0, head)}${marker(text.length - keep)}${tail > 0 ? text.slice(-tail) : ""}`;
}

function actionText(step: StepRecord): string {
  return step.action === null ? "(none: the agent's output did not parse)" : canonicalJson(step.action);
}

/** How the episode ended, from its last step (never the verifier's verdict or the rewards). */
function endingOf(t: Pick<Trajectory, "steps">): string {
  const last = t.steps.at(-1);
  if (!last) return "no step was taken";
  if (last.terminated) return "the environment ended the episode";
  if (last.truncated) return "the episode was cut off";
  return "the step limit was reached";
}

/**
 * The judge's user message: the task's instruction, the steps (the first one and the last
 * `maxSteps − 1`, the others elided and counted; each observation clipped to `maxObservationChars`)
 * and the final observation (clipped to `maxFinalChars`). Rewards, step info and the verifier's
 * outcome are never shown: the judge decides from what an agent could see.
 */
export function judgeUserMessage(
  task: Pick<Task, "instruction">,
  t: Pick<Trajectory, "steps" | "finalObservation">,
  options: Pick<JudgeOptions, "maxSteps" | "maxObservationChars" | "maxFinalChars">,
): string {
  const steps = t.steps;
  const shown =
    steps.length <= options.maxSteps
      ? steps.map((s, i) => ({ s, i }))
      : [
          { s: steps[0] as StepRecord, i: 0 },
          ...steps.slice(steps.length - options.maxSteps + 1).map((s, j) => ({
            s,
            i: steps.length - options.maxSteps + 1 + j,
          })),
        ];
  const lines = [`Task: ${task.instruction}`, "", `Steps (${steps.length} in all):`];
  let previous = -1;
  for (const { s, i } of shown) {
    if (i > previous + 1) lines.push(`[${i - previous - 1} steps elided]`);
    lines.push(`Step ${i + 1}`, "Observation:", clipText(s.observation.text, options.maxObservationChars));
    lines.push(`Action: ${actionText(s)}`);
    previous = i;
  }
  const final = t.finalObservation?.text;
  lines.push(
    "",
    `Final observation (${endingOf(t)}):`,
    final === undefined ? "(none recorded)" : clipText(final, options.maxFinalChars),
    "",
    "Did the agent complete the task?",
  );
  return lines.join("\n");
}

/** The messages of one judge call. */
export function judgeMessages(
  task: Pick<Task, "instruction">,
  t: Pick<Trajectory, "steps" | "finalObservation">,
  options: Pick<JudgeOptions, "maxSteps" | "maxObservationChars" | "maxFinalChars">,
): ChatMessage[] {
  return [
    { role: "system", content: JUDGE_SYSTEM_PROMPT },
    { role: "user", content: judgeUserMessage(task, t, options) },
  ];
}
