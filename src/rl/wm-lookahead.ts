import { z } from "zod";
import { type Action, type Candidate, canonicalJson, type Policy } from "../core/index.ts";
import { optionsParser } from "./parse-options.ts";
import { formatWmAnswer, formatWmCall } from "./wm-transcript.ts";
import type { WmPrediction, WorldModel } from "./world-model.ts";

export const WmLookaheadOptionsSchema = z
  .object({
    /** Candidates sampled from the base policy per step (duplicates are asked about once). */
    candidates: z.number().int().min(1).max(64).default(4),
    /** At most this many world-model calls per step (the reference cap: 5). */
    cap: z.number().int().min(0).max(64).default(5),
  })
  .strict();
export type WmLookaheadOptions = z.infer<typeof WmLookaheadOptionsSchema>;

/** Validated wm-lookahead options; an invalid one is a UserError naming the field. */
export const parseWmLookaheadOptions = optionsParser(WmLookaheadOptionsSchema, {
  code: "wm_lookahead_options",
  root: "wmLookahead",
  hint: "candidates is 1..64, cap 0..64 (default 4 and 5)",
});

/** One `<call_wm>` block and its injected answer, as an LLM transcript would hold them. */
export function wmCallText(action: Action, p: WmPrediction): string {
  return `${formatWmCall(JSON.stringify(action))}\n${formatWmAnswer(p)}`;
}

/** How good a predicted outcome is: a verified success, then reward, and an ending failure last. */
function score(p: WmPrediction): number {
  if (p.success) return 1e6;
  return p.reward - (p.terminated ? 1e3 : 0);
}

/**
 * The model-free `wm-lookahead` policy: samples `candidates` actions from `base`, asks the world model
 * about each distinct one (at most `cap` calls per step), and commits the best predicted one (ties:
 * the first sampled). Its raw output is the transcript: one `<call_wm>` block per call with the
 * world model's answer, then `Action: {...}` — so a trajectory's WM calls are counted from its own
 * steps, and its data exports like an LLM's. Closing stays with whoever made `base`.
 */
export function wmLookaheadPolicy(base: Policy, wm: WorldModel, options: WmLookaheadOptions): Policy {
  return {
    name: `wm-lookahead(${base.name})`,
    async propose(context, propose) {
      const proposal = await base.propose(context, { ...propose, n: options.candidates });
      const seen = new Set<string>();
      const distinct: Array<Candidate & { action: Action }> = [];
      for (const c of proposal.candidates) {
        if (c.action === null) continue;
        const key = canonicalJson(c.action);
        if (seen.has(key)) continue;
        seen.add(key);
        distinct.push(c as Candidate & { action: Action });
      }
      const first = proposal.candidates[0];
      if (distinct.length === 0 || !first) return proposal;
      const lines: string[] = [];
      let best: { c: Candidate & { action: Action }; s: number } | undefined;
      for (const c of distinct.slice(0, options.cap)) {
        const p = await wm.predict(c.action, { task: context.task, observation: context.observation });
        lines.push(wmCallText(c.action, p));
        const s = score(p);
        if (!best || s > best.s) best = { c, s };
      }
      const chosen = best?.c ?? distinct[0];
      if (!chosen) return proposal;
      lines.push(`Action: ${JSON.stringify(chosen.action)}`);
      return {
        candidates: [{ action: chosen.action, raw: lines.join("\n") }],
        ...(proposal.usage ? { usage: proposal.usage } : {}),
      };
    },
  };
}
