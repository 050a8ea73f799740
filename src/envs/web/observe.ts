import type { ActionError, Observation } from "../../core/index.ts";
import { sha256Hex } from "../../core/index.ts";
import type { WebEnvironmentConfig } from "./config.ts";
import type { PageView } from "./page-agent.ts";

/** Cuts text at a line boundary below `max` characters and says how many lines were left out. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > max - 40) break;
    kept.push(line);
    size += line.length + 1;
  }
  return `${kept.join("\n")}\n… (${lines.length - kept.length} more lines cut)`;
}

export interface BuildObservationArgs {
  view: PageView;
  /** Path on the task server, port-free (so that observations are equal across servers). */
  url: string;
  screenshot: Uint8Array | undefined;
  config: WebEnvironmentConfig;
  step: number;
  blockedRequests: number;
  dialogs: ReadonlyArray<string>;
  error: ActionError | undefined;
}

/**
 * The observation: `text` = "Instruction: ..." plus the axtree (bounded); `axtree`, `url`, `title`,
 * `focused`, `instruction`, a PNG `screenshot`, and `data` (query fields, step, blocked requests,
 * dialogs, viewport).
 */
export function buildObservation(args: BuildObservationArgs): Observation {
  const { view, config } = args;
  const instruction = view.instruction.utterance;
  const axtree = config.observation.axtree
    ? boundText(view.axtree, config.observation.maxAxtreeChars)
    : undefined;
  const text = [`Instruction: ${instruction}`, ...(axtree === undefined ? [] : [axtree])].join("\n");
  const data: Record<string, unknown> = {
    step: args.step,
    blockedRequests: args.blockedRequests,
    viewport: { width: config.viewport.width, height: config.viewport.height },
  };
  if (view.instruction.fields) data.fields = view.instruction.fields;
  if (args.dialogs.length > 0) data.dialogs = [...args.dialogs];
  const observation: Observation = {
    text,
    instruction,
    url: args.url,
    title: view.title,
    focused: view.focused,
    data,
  };
  if (axtree !== undefined) observation.axtree = axtree;
  if (args.screenshot) {
    const bytes = new Uint8Array(args.screenshot);
    observation.screenshot = {
      mime: "image/png",
      sha256: sha256Hex(bytes),
      width: config.viewport.width,
      height: config.viewport.height,
      bytes,
    };
  }
  if (args.error) observation.error = args.error;
  return observation;
}
