import { ACTION_TYPES, type Action, type ActionType } from "../core/action.ts";
import type { Observation } from "../core/observation.ts";
import type { PolicyContext } from "../core/policy.ts";
import type { ChatMessage, ContentPart } from "./messages.ts";

/** An example action as the prompt shows it: JSON with a space after each colon and comma. */
function exampleText(action: Record<string, unknown>): string {
  return JSON.stringify(action, null, 1)
    .replace(/,\n\s*/g, ", ")
    .replace(/\n\s*/g, "");
}

const POINTER = "elementId OR x, y";
const doc = (fields: string, example: Action) => ({ fields, example: exampleText(example) });

/** Fields and an example per action type, shown to the model. Typed so that a new action type must be added here. */
export const ACTION_DOCS: Readonly<Record<ActionType, { fields: string; example: string }>> = {
  click: doc("elementId (string) OR x, y (numbers, CSS pixels)", { type: "click", elementId: "12" }),
  double_click: doc(POINTER, { type: "double_click", x: 120, y: 48 }),
  right_click: doc(POINTER, { type: "right_click", elementId: "7" }),
  hover: doc(POINTER, { type: "hover", elementId: "3" }),
  drag: doc("from, to (each {elementId} or {x, y})", {
    type: "drag",
    from: { elementId: "4" },
    to: { x: 300, y: 200 },
  }),
  type: doc("text (string); optional elementId to focus first", {
    type: "type",
    elementId: "5",
    text: "hello",
  }),
  key: doc("keys (e.g. Enter, Escape, ctrl+a)", { type: "key", keys: "Enter" }),
  scroll: doc("direction (up|down|left|right); optional amount (pixels), optional x, y", {
    type: "scroll",
    direction: "down",
    amount: 400,
  }),
  select: doc("elementId, value (the option to choose)", { type: "select", elementId: "9", value: "Blue" }),
  wait: doc("ms (0-60000, default 500)", { type: "wait", ms: 1000 }),
  done: doc("optional answer (string)", { type: "done", answer: "42" }),
  fail: doc("optional reason (string)", { type: "fail", reason: "the item is sold out" }),
  move: doc("direction (left|down|right|up)", { type: "move", direction: "right" }),
  uci: doc("move (UCI notation, e.g. e2e4, e7e8q)", { type: "uci", move: "e2e4" }),
  shell: doc("command (one bash command line)", { type: "shell", command: "ls -la" }),
};

const ENDINGS: ReadonlyArray<ActionType> = ["done", "fail"];

/**
 * The action types a task's family acts with: `move` for FrozenLake, `uci` for chess, `shell` for the
 * terminal (each with done/fail); any other family (the web, and families this table does not know)
 * gets every type but `shell`, the list the web prompt has always shown.
 */
export function actionTypesForFamily(family: string | undefined): ReadonlyArray<ActionType> {
  switch (family) {
    case "frozenlake":
      return ["move", ...ENDINGS];
    case "chess":
      return ["uci", ...ENDINGS];
    case "terminal":
      return ["shell", ...ENDINGS];
    default:
      return ACTION_TYPES.filter((t) => t !== "shell");
  }
}

export interface PromptOptions {
  /** Action types to offer (default: those of the task's family, `actionTypesForFamily`). */
  actionTypes?: ReadonlyArray<ActionType>;
  /** How many earlier steps to show (default 5). */
  historyLength?: number;
  /** Attach the screenshot as an image when the observation has its bytes (default true). */
  includeScreenshot?: boolean;
  /** Observation text and accessibility tree are cut to this many characters each (default 12000). */
  maxObservationChars?: number;
  /** Replaces the default system message. */
  systemPrompt?: string;
  /** The policy may ask a world model: the system message gains `wmCallInstructions(cap)`. */
  wmCalls?: { cap: number };
}

/**
 * The instruction block for in-reasoning world-model calls (`<call_wm>ACTION_JSON</call_wm>`),
 * appended to the system message when the policy has a world model. The tags are those of the
 * transcript format (`src/rl/wm-transcript.ts`); the answer comes back as a `<wm_answer>` block.
 */
export function wmCallInstructions(cap: number): string {
  return [
    "World model: before your final action you may imagine an action's outcome. Write",
    '<call_wm>{"type": ...}</call_wm> holding one action as JSON (the format above) and stop; the answer',
    "comes back as <wm_answer>System (WM): reward R, terminated T, success S, then the predicted",
    `observation</wm_answer>. Imagined actions change nothing. At most ${cap} call${cap === 1 ? "" : "s"} per turn;`,
    'then commit with the line "Action: {...}".',
  ].join("\n");
}

/** The system message: the reply format and every offered action with its fields. */
export function defaultSystemPrompt(actionTypes: ReadonlyArray<ActionType> = ACTION_TYPES): string {
  const lines = actionTypes.map(
    (t) => `- ${t}: ${ACTION_DOCS[t].fields}. Example: ${ACTION_DOCS[t].example}`,
  );
  return [
    "You are an agent that completes a task by acting in an environment, one action per turn.",
    "Each turn you see the task, the current observation and your recent actions.",
    "",
    'Reply with exactly ONE action as a JSON object with a "type" field. You may think briefly first;',
    'then end your reply with a line "Action: {...}" holding the JSON object. Never give two actions.',
    "",
    "Actions:",
    ...lines,
    "",
    "Use elementId values from the accessibility tree when there is one. Reply done when the task is",
    "complete (with the answer if the task asks a question), fail when it cannot be completed.",
  ].join("\n");
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... ${text.length - max} more characters]`;
}

function actionText(action: Action | null, raw: string): string {
  if (action) return JSON.stringify(action);
  const snippet = raw.trim().replace(/\s+/g, " ").slice(0, 160);
  return `(no valid action; your reply was: ${JSON.stringify(snippet)})`;
}

function observationSection(observation: Observation, maxChars: number): string[] {
  const out: string[] = [];
  if (observation.url !== undefined) out.push(`URL: ${observation.url}`);
  if (observation.title !== undefined) out.push(`Title: ${observation.title}`);
  if (observation.focused !== undefined) out.push(`Focused: ${observation.focused}`);
  out.push("", "Observation:", cut(observation.text, maxChars));
  if (observation.axtree !== undefined)
    out.push("", "Accessibility tree:", cut(observation.axtree, maxChars));
  if (observation.legalActions !== undefined && observation.legalActions.length > 0)
    out.push("", "Legal actions:", ...observation.legalActions.map((a) => JSON.stringify(a)));
  return out;
}

/** System + user messages for one step of `context`. */
export function buildAgentMessages(context: PolicyContext, options: PromptOptions = {}): ChatMessage[] {
  const maxChars = options.maxObservationChars ?? 12_000;
  const historyLength = options.historyLength ?? 5;
  const { observation, task } = context;
  const lines: string[] = [
    `Task: ${observation.instruction ?? task.instruction}`,
    `Step: ${context.stepIndex}`,
  ];
  lines.push(...observationSection(observation, maxChars));
  const recent = historyLength > 0 ? context.history.slice(-historyLength) : [];
  if (recent.length > 0) {
    const first = context.history.length - recent.length;
    lines.push("", "Previous actions (oldest first):");
    recent.forEach((h, i) => {
      lines.push(`${first + i + 1}. ${actionText(h.action, h.raw)}`);
    });
  }
  if (observation.error !== undefined)
    lines.push("", `Your last action failed: ${observation.error.message} (${observation.error.code})`);
  lines.push("", "Reply with your next action.");

  const text = lines.join("\n");
  const shot = observation.screenshot;
  const parts: ContentPart[] = [{ type: "text", text }];
  if ((options.includeScreenshot ?? true) && shot?.bytes !== undefined)
    parts.push({ type: "image", mime: shot.mime, bytes: shot.bytes });
  const system =
    options.systemPrompt ?? defaultSystemPrompt(options.actionTypes ?? actionTypesForFamily(task.family));
  return [
    {
      role: "system",
      content: options.wmCalls ? `${system}\n\n${wmCallInstructions(options.wmCalls.cap)}` : system,
    },
    { role: "user", content: parts.length === 1 ? text : parts },
  ];
}
