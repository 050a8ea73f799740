import { z } from "zod";
import { splitWmTranscript } from "./wm-transcript.ts";

/**
 * Loss masks for exported completions. A completion is a list of turns: each step's raw output (the
 * policy's own text, with the world-model answers the runner injected between it) and, between
 * steps, the next observation. Only the policy's own text is trainable.
 *
 * - A step becomes one message per transcript segment (`splitWmTranscript`): the policy's text as
 *   `assistant` (trainable), each injected `<wm_answer>` block as its own `user` message (not
 *   trainable: `user` is the role every chat template accepts, and a trainer that masks non-assistant
 *   turns masks it with no extra code). Joining a step's message contents gives its raw text back.
 * - An observation is one `user` message (not trainable).
 * - The flat form joins the turns with `\n` (the messages of one step with nothing, so each step's
 *   raw text appears verbatim); `spans[i]` is message i's `[start, end)` in it, counted in Unicode
 *   code points (Python `str` indices, not UTF-16 units), so `text[start:end]` is the message.
 */
export const MessageRoleSchema = z.enum(["system", "user", "assistant"]);
export const ChatMessageSchema = z.object({ role: MessageRoleSchema, content: z.string() }).strict();
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** Where a completion message comes from: only `policy` messages are trainable. */
export const MessageSourceSchema = z.enum(["policy", "wm_answer", "observation"]);
export type MessageSource = z.infer<typeof MessageSourceSchema>;

export interface MaskedMessage extends ChatMessage {
  source: MessageSource;
}

/** One turn of a completion: a step's raw output, or the observation shown before the next step. */
export type CompletionTurn = { kind: "step"; raw: string } | { kind: "observation"; text: string };

/** A completion with its per-message mask and its flat form. */
export interface MaskedCompletion {
  messages: ChatMessage[];
  /** true = trainable (the policy's own text), aligned with `messages`. */
  mask: boolean[];
  sources: MessageSource[];
  /** The turns joined with `\n`; each step's raw text appears verbatim. */
  text: string;
  /** `[start, end)` of each message in `text`, in code points. */
  spans: Array<[number, number]>;
}

/** A step's raw output as messages: policy text `assistant`, each injected answer `user`. */
export function stepMessages(raw: string): MaskedMessage[] {
  return splitWmTranscript(raw).map((seg) =>
    seg.kind === "policy"
      ? { role: "assistant", content: seg.text, source: "policy" }
      : { role: "user", content: seg.text, source: "wm_answer" },
  );
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** The masked completion of a list of turns (see the module comment). */
export function maskCompletion(turns: ReadonlyArray<CompletionTurn>): MaskedCompletion {
  const out: MaskedCompletion = { messages: [], mask: [], sources: [], text: "", spans: [] };
  let at = 0;
  turns.forEach((turn, i) => {
    if (i > 0) {
      out.text += "\n";
      at += 1;
    }
    const messages: MaskedMessage[] =
      turn.kind === "step"
        ? stepMessages(turn.raw)
        : [{ role: "user", content: turn.text, source: "observation" }];
    for (const m of messages) {
      const end = at + codePoints(m.content);
      out.messages.push({ role: m.role, content: m.content });
      out.mask.push(m.source === "policy");
      out.sources.push(m.source);
      out.spans.push([at, end]);
      out.text += m.content;
      at = end;
    }
  });
  return out;
}

/** The issue with a mask whose arrays do not line up with its messages and text, or undefined. */
export function maskAlignmentIssue(c: {
  messages: ReadonlyArray<ChatMessage>;
  mask: ReadonlyArray<boolean>;
  sources: ReadonlyArray<MessageSource>;
  spans?: ReadonlyArray<readonly [number, number]>;
  text?: string;
}): string | undefined {
  const n = c.messages.length;
  if (c.mask.length !== n || c.sources.length !== n || (c.spans && c.spans.length !== n))
    return `the mask arrays must have one entry per completion message (${n})`;
  for (let i = 0; i < n; i++) {
    const source = c.sources[i];
    if (c.mask[i] !== (source === "policy")) return `message ${i}: only policy text is trainable`;
    if ((source === "policy") !== (c.messages[i]?.role === "assistant"))
      return `message ${i}: policy text is the assistant's, and only it`;
  }
  if (c.spans && c.text !== undefined) {
    const points = Array.from(c.text);
    for (let i = 0; i < n; i++) {
      const [start, end] = c.spans[i] ?? [0, 0];
      if (points.slice(start, end).join("") !== c.messages[i]?.content)
        return `message ${i}: its span does not cover its text in the flat completion`;
    }
  }
  return undefined;
}
