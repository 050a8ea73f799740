import {
  type Action,
  ActionSchema,
  type HistoryEntry,
  type Observation,
  type PolicyContext,
  type Task,
} from "../core/index.ts";

/**
 * Reads back the policy context an exported record's prompt shows (the llm policy's user message, as
 * `buildAgentMessages` writes it): the instruction, the step, URL/title/focus, the observation text,
 * the accessibility tree, the legal actions, the previous actions and the last action's error. What
 * the prompt does not show (earlier observations, hidden state) is absent: the trainable policies'
 * features read only what it shows.
 */

const SECTION_HEADERS = [
  "\n\nAccessibility tree:\n",
  "\n\nLegal actions:\n",
  "\n\nPrevious actions (oldest first):\n",
  "\n\nYour last action failed: ",
  "\n\nReply with your next action.",
] as const;

/**
 * The family a record's system prompt offers actions for: move → frozenlake, uci → chess, shell →
 * terminal; a prompt that offers clicks is the web's (it lists move and uci too), as is any other.
 */
export function familyFromSystemPrompt(system: string): string {
  if (/^- click:/m.test(system)) return "web";
  if (/^- move:/m.test(system)) return "frozenlake";
  if (/^- uci:/m.test(system)) return "chess";
  if (/^- shell:/m.test(system)) return "terminal";
  return "web";
}

function parseActionLine(text: string): Action | null {
  try {
    const r = ActionSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** Cuts `body` at each header it holds: header → the text after it up to the next header. */
function sections(body: string): Map<string, string> {
  const found = SECTION_HEADERS.map((h) => ({ h, at: body.indexOf(h) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at);
  const out = new Map<string, string>();
  out.set("observation", body.slice(0, found[0]?.at ?? body.length));
  found.forEach((x, i) => {
    out.set(x.h, body.slice(x.at + x.h.length, found[i + 1]?.at ?? body.length));
  });
  return out;
}

export interface PromptTaskInfo {
  taskId: string;
  family: string;
  split?: "train" | "heldout";
}

/** The policy context of a record's user message; null when the text is not a Rehearsal prompt. */
export function contextFromPrompt(userText: string, info: PromptTaskInfo): PolicyContext | null {
  const head = /(?:^|\n)Task: ([\s\S]*?)\nStep: (\d+)\n/.exec(userText);
  if (!head) return null;
  const instruction = head[1] ?? "";
  const stepIndex = Number(head[2]);
  const rest = userText.slice(head.index + head[0].length);
  const obsAt = rest.indexOf("\nObservation:\n");
  if (obsAt < 0) return null;
  const observation: Observation = { text: "", instruction };
  for (const line of rest.slice(0, obsAt).split("\n")) {
    if (line.startsWith("URL: ")) observation.url = line.slice(5);
    else if (line.startsWith("Title: ")) observation.title = line.slice(7);
    else if (line.startsWith("Focused: ")) observation.focused = line.slice(9);
  }
  const parts = sections(rest.slice(obsAt + "\nObservation:\n".length));
  observation.text = parts.get("observation") ?? "";
  const axtree = parts.get("\n\nAccessibility tree:\n");
  if (axtree !== undefined) observation.axtree = axtree;
  const legal = parts.get("\n\nLegal actions:\n");
  if (legal !== undefined)
    observation.legalActions = legal.split("\n").flatMap((l) => {
      const a = parseActionLine(l);
      return a ? [a] : [];
    });
  const failed = parts.get("\n\nYour last action failed: ");
  if (failed !== undefined) {
    const m = /^([\s\S]*) \(([^()]*)\)$/.exec(failed.trim());
    observation.error = { message: m?.[1] ?? failed.trim(), code: m?.[2] ?? "error" };
  }
  const history: HistoryEntry[] = (parts.get("\n\nPrevious actions (oldest first):\n") ?? "")
    .split("\n")
    .flatMap((line) => {
      const m = /^\d+\. (.*)$/.exec(line);
      if (!m) return [];
      const raw = m[1] ?? "";
      return [{ observation: { text: "" }, action: parseActionLine(raw), raw }];
    });
  const task: Task = {
    id: info.taskId,
    instruction,
    family: info.family,
    seed: 0,
    split: info.split ?? "train",
    verifier: { kind: "exported" },
    tags: [],
  };
  return { task, observation, history, stepIndex };
}
