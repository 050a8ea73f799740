import type { WmPrediction } from "./world-model.ts";

/**
 * The `<call_wm>` transcript format, shared by every writer (the `wm-lookahead` policy, the `llm`
 * policy's in-reasoning calls) and every reader (WM-call counts, loss masks, exports).
 *
 * A policy's raw output for one step is policy text with calls and answers between it:
 *
 *     <reasoning…> <call_wm>{"type":"move","direction":"down"}</call_wm>
 *     <wm_answer>
 *     System (WM): reward 0, terminated false, success false
 *     <the predicted observation, cut to WM_OBSERVATION_CHARS>
 *     </wm_answer>
 *     <more reasoning…> Action: {"type":"move","direction":"down"}
 *
 * The call (`<call_wm>…</call_wm>`) is the policy's own text (trainable); the answer block
 * (`<wm_answer>…</wm_answer>`) is injected by the runner (never trainable). A malformed call is still
 * a call: it is answered with `System (WM): error: …` inside the same block.
 */
export const WM_CALL_OPEN = "<call_wm>";
export const WM_CALL_CLOSE = "</call_wm>";
export const WM_ANSWER_OPEN = "<wm_answer>";
export const WM_ANSWER_CLOSE = "</wm_answer>";
/** The predicted observation shown in an answer is cut to this many characters (then `…`). */
export const WM_OBSERVATION_CHARS = 400;

/** `<call_wm>TEXT</call_wm>`: the text the policy wrote as its call (usually an action's JSON). */
export function formatWmCall(callText: string): string {
  return `${WM_CALL_OPEN}${callText}${WM_CALL_CLOSE}`;
}

/** The injected answer block for a prediction. */
export function formatWmAnswer(p: WmPrediction): string {
  const obs =
    p.observation.text.length > WM_OBSERVATION_CHARS
      ? `${p.observation.text.slice(0, WM_OBSERVATION_CHARS)}…`
      : p.observation.text;
  return `${WM_ANSWER_OPEN}\nSystem (WM): reward ${p.reward}, terminated ${p.terminated}, success ${p.success}\n${obs}\n${WM_ANSWER_CLOSE}`;
}

/** The injected answer block for a call that could not be answered (malformed, over the cap, …). */
export function formatWmError(message: string): string {
  return `${WM_ANSWER_OPEN}\nSystem (WM): error: ${message}\n${WM_ANSWER_CLOSE}`;
}

/** One piece of a step's raw output: the policy's own text, or an injected world-model answer. */
export interface TranscriptSegment {
  kind: "policy" | "wm_answer";
  text: string;
}

/**
 * Splits a raw output into policy text and injected answers, in order; joining the texts gives the
 * raw output back exactly. An unclosed `<wm_answer>` runs to the end of the text (still injected).
 */
export function splitWmTranscript(raw: string): TranscriptSegment[] {
  const out: TranscriptSegment[] = [];
  let at = 0;
  while (at < raw.length) {
    const open = raw.indexOf(WM_ANSWER_OPEN, at);
    if (open < 0) {
      out.push({ kind: "policy", text: raw.slice(at) });
      break;
    }
    if (open > at) out.push({ kind: "policy", text: raw.slice(at, open) });
    const close = raw.indexOf(WM_ANSWER_CLOSE, open + WM_ANSWER_OPEN.length);
    const end = close < 0 ? raw.length : close + WM_ANSWER_CLOSE.length;
    out.push({ kind: "wm_answer", text: raw.slice(open, end) });
    at = end;
  }
  return out;
}

/** The calls written in the policy's own text (answers are not searched), in order. */
export function wmCallTexts(raw: string): string[] {
  const calls: string[] = [];
  for (const seg of splitWmTranscript(raw)) {
    if (seg.kind !== "policy") continue;
    const re = /<call_wm>([\s\S]*?)<\/call_wm>/g;
    for (let m = re.exec(seg.text); m; m = re.exec(seg.text)) calls.push(m[1] ?? "");
  }
  return calls;
}

/** How many `<call_wm>` calls a raw output holds (in the policy's own text). */
export function countWmCalls(raw: string): number {
  return wmCallTexts(raw).length;
}
