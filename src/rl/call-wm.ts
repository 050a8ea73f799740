import type { Policy } from "../core/index.ts";
import { parseAction } from "../llm/parse-action.ts";
import {
  type ContinuationSession,
  type ContinuationTurn,
  createLlmPolicy,
  type LlmContinuation,
  type LlmPolicyOptions,
  llmPolicyOptionsOf,
} from "../policies/llm-policy.ts";
import { type WmLookaheadOptions, wmLookaheadPolicy } from "./wm-lookahead.ts";
import {
  formatWmAnswer,
  formatWmError,
  splitWmTranscript,
  WM_CALL_CLOSE,
  WM_CALL_OPEN,
} from "./wm-transcript.ts";
import type { WorldModel } from "./world-model.ts";

export interface CallWmOptions {
  /** At most this many answered calls per step (per sample); the reference cap is 5. */
  cap: number;
}

/** The answer to a call over the cap: no prediction is made. */
export function capReachedMessage(cap: number): string {
  return `WM-call cap of ${cap} per step reached; commit an action`;
}

/** The answer to a call that is not one valid action (`why`: the parse error). */
export function malformedCallMessage(why: string): string {
  return `the call is not one action (${why}); write one action as JSON, e.g. {"type": "done"}`;
}

/**
 * The first `<call_wm>` of a reply: the policy's text up to and including the call (closed with
 * `</call_wm>`, which the stop sequence cut off) and the call's text. Anything after a call that a
 * server wrote anyway (one that ignores stop sequences) is dropped: only the injected answer follows.
 */
export function cutAtCall(reply: string): { kept: string; call: string } | undefined {
  const open = reply.indexOf(WM_CALL_OPEN);
  if (open < 0) return undefined;
  const start = open + WM_CALL_OPEN.length;
  const close = reply.indexOf(WM_CALL_CLOSE, start);
  const call = close < 0 ? reply.slice(start) : reply.slice(start, close);
  return { kept: `${reply.slice(0, start)}${call}${WM_CALL_CLOSE}`, call };
}

/** The policy text after the last injected answer: where the final `Action:` is read from. */
export function finalPolicyText(raw: string): string {
  const last = splitWmTranscript(raw).at(-1);
  return last?.kind === "policy" ? last.text : "";
}

/**
 * The `<call_wm>` continuation: every completion stops at `</call_wm>`; a reply ending in a call
 * is answered from `wm` (the committed observation of this step) with `formatWmAnswer`, a call that
 * is not one valid action with `formatWmError`, and the conversation goes on. Calls 1..cap are
 * answered; call cap+1 gets the cap error (no prediction); a sample that calls again after that ends
 * there, without an action. Counters live in each sample's session: they start at 0 every step.
 * Predictions run one at a time (the perfect model steps and restores the one environment).
 */
export function wmCallContinuation(wm: WorldModel, options: CallWmOptions): LlmContinuation {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    stop: [WM_CALL_CLOSE],
    actionText: finalPolicyText,
    start(context): ContinuationSession {
      let calls = 0;
      return {
        async next(reply): Promise<ContinuationTurn> {
          const cut = cutAtCall(reply);
          if (!cut) return { kind: "final", text: reply };
          calls += 1;
          if (calls > options.cap + 1)
            return { kind: "final", text: `${cut.kept}\n${formatWmError(capReachedMessage(options.cap))}` };
          if (calls > options.cap)
            return {
              kind: "continue",
              kept: cut.kept,
              answer: formatWmError(capReachedMessage(options.cap)),
            };
          const parsed = parseAction(cut.call);
          if (!parsed.ok)
            return {
              kind: "continue",
              kept: cut.kept,
              answer: formatWmError(malformedCallMessage(parsed.error.message)),
            };
          const p = await serial(() =>
            wm.predict(parsed.action, { task: context.task, observation: context.observation }),
          );
          return { kind: "continue", kept: cut.kept, answer: formatWmAnswer(p) };
        },
      };
    },
  };
}

/** An llm policy whose replies may call `wm` in their reasoning (`<call_wm>`), at most `cap` per step. */
export function withWmCalls(llm: LlmPolicyOptions, wm: WorldModel, options: CallWmOptions): Policy {
  return createLlmPolicy({
    ...llm,
    name: `call-wm(${llm.name ?? `llm:${(llm.config ?? llm.client.config).model}`})`,
    promptOptions: { ...llm.promptOptions, wmCalls: { cap: options.cap } },
    continuation: wmCallContinuation(wm, options),
  });
}

/**
 * How `rl rollouts --wm` gives a policy its world model: an llm policy calls it in its reasoning
 * (`withWmCalls`, at most `cap` per step); any other policy is wrapped in the model-free
 * `wm-lookahead`.
 */
export function worldModelPolicy(base: Policy, wm: WorldModel, options: WmLookaheadOptions): Policy {
  const llm = llmPolicyOptionsOf(base);
  return llm
    ? withWmCalls({ ...llm, name: base.name }, wm, { cap: options.cap })
    : wmLookaheadPolicy(base, wm, options);
}
