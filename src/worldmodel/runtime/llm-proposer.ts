import { z } from "zod";
import { canonicalJson, type StateRecord } from "../../core/index.ts";
import { type ChatClient, type ChatMessage, extractJsonCandidates } from "../../llm/index.ts";
import { type ActionArgs, resolveEffects } from "../worldbook/conditions.ts";
import { EffectSchema } from "../worldbook/schema.ts";
import { judgeRule } from "./applicability.ts";
import type { Proposal, Rejection } from "./contract.ts";
import { precedentsFor } from "./proposers.ts";
import { candidateRules } from "./retrieve.ts";
import type { StepInputs } from "./step-context.ts";
import { matchesFieldPattern } from "./validation.ts";

/** One reply of the model: a tool call or the final proposal (the JSON protocol). */
export const LlmToolCallSchema = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("get_state"), paths: z.array(z.string().min(1)).max(200) }),
  z.object({ tool: z.literal("rules"), action: z.record(z.string(), z.unknown()).optional() }),
  z.object({ tool: z.literal("evidence"), action: z.record(z.string(), z.unknown()).optional() }),
  z.object({
    tool: z.literal("propose"),
    effects: z.array(EffectSchema.omit({ from: true, bounds: true }).strict()),
    reward: z.number().optional(),
    terminated: z.boolean().optional(),
  }),
]);
export type LlmToolCall = z.infer<typeof LlmToolCallSchema>;

export function llmSystemPrompt(maxTurns: number): string {
  return [
    "You are the transition model of a simulated environment. The state is a flat record of dotted paths",
    "(a path that is not present is unknown). Given the state and an action, predict the next state as",
    "ordered effects. Reply each turn with exactly one JSON object and nothing else, one of:",
    '{"tool":"get_state","paths":["a.path", "cell.*.*"]}  read state values (`*` matches one segment)',
    '{"tool":"rules"}  the worldbook rules matching the action, with the applicability gate\'s verdicts',
    '{"tool":"evidence"}  the nearest recorded transitions with this action',
    '{"tool":"propose","effects":[{"op":"set","path":"a.path","value":1}],"reward":0,"terminated":false}',
    "  your answer (reward and terminated may be left out: the worldbook's outcome rules decide them).",
    "Effect ops: set (value), delete, increment and decrement (value: the amount), append and remove",
    `(value: a list). You have at most ${maxTurns} replies; the last one must be propose.`,
  ].join("\n");
}

/** What `get_state` answers: the values of the asked paths (patterns allowed) and the unknown ones. */
function readState(state: StateRecord, paths: ReadonlyArray<string>) {
  const values: StateRecord = {};
  const unknown: string[] = [];
  for (const p of paths) {
    if (p.includes("*")) {
      const hits = Object.keys(state).filter((k) => matchesFieldPattern(p, k));
      if (hits.length === 0) unknown.push(p);
      for (const k of hits) values[k] = state[k] as StateRecord[string];
    } else if (state[p] === undefined) unknown.push(p);
    else values[p] = state[p] as StateRecord[string];
  }
  return { values, unknown };
}

function toolResult(call: Exclude<LlmToolCall, { tool: "propose" }>, inputs: StepInputs): unknown {
  if (call.tool === "get_state") return readState(inputs.state, call.paths);
  const args = (call.action as ActionArgs | undefined) ?? inputs.args;
  if (call.tool === "rules") {
    return candidateRules(inputs.index, args)
      .slice(0, 5)
      .map((rule) => {
        const c = judgeRule(rule, inputs.state, args, inputs.context, inputs.options.confidenceThreshold);
        return {
          id: rule.id,
          verdict: c.verdict,
          reason: c.reason,
          conditions: rule.conditions,
          outcomes: rule.outcomes.map((o) => ({
            probability: o.probability,
            effects: resolveEffects(o.effects, inputs.state, args) ?? o.effects,
          })),
        };
      });
  }
  if (!inputs.options.useEvidence) return { transitions: [], note: "evidence is not used (ablation)" };
  return {
    transitions: precedentsFor({ ...inputs, args })
      .slice(0, 3)
      .map((p) => ({
        id: p.id,
        facts: p.facts,
        effects: p.effects,
        reward: p.reward,
        terminated: p.terminated,
      })),
  };
}

/** The first JSON object of a reply as a tool call, or why it is not one. */
export function parseToolCall(text: string): { call: LlmToolCall } | { error: string } {
  const value = extractJsonCandidates(text).find((c) => c.kind === "value");
  if (value?.kind !== "value") return { error: "no JSON object in the reply" };
  const parsed = LlmToolCallSchema.safeParse(value.value);
  if (parsed.success) return { call: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(reply)"}: ${i.message}`);
  return { error: `not a tool call: ${issues.join("; ")}` };
}

/** A conversation with the model about one step; `ask` runs one attempt (a bounded number of turns). */
export interface LlmSession {
  ask(attempt: number): Promise<{ proposal: Proposal } | { rejection: Rejection }>;
  /** Tells the model why its last proposal was rejected (before the next attempt). */
  reject(reason: string): void;
}

export function createLlmSession(llm: ChatClient, inputs: StepInputs): LlmSession {
  const maxTurns = inputs.options.llmMaxTurns;
  const fields = inputs.book.schemas.fields.slice(0, 60).map((f) => `${f.path}: ${f.type}`);
  const messages: ChatMessage[] = [
    { role: "system", content: llmSystemPrompt(maxTurns) },
    {
      role: "user",
      content: `Task: ${inputs.context.taskId}\nAction: ${canonicalJson(inputs.action)}\nState fields:\n${fields.join("\n")}`,
    },
  ];
  return {
    async ask(attempt) {
      for (let turn = 0; turn < maxTurns; turn++) {
        const basis = `llm#${attempt}.${turn}`;
        const { texts } = await llm.complete({ messages, temperature: 0 });
        const text = texts[0] ?? "";
        messages.push({ role: "assistant", content: text });
        const parsed = parseToolCall(text);
        if ("error" in parsed) {
          messages.push({
            role: "user",
            content: `Your reply does not parse (${parsed.error}). Reply with one JSON object.`,
          });
          return {
            rejection: { stage: "proposal", basis, reason: `model output does not parse: ${parsed.error}` },
          };
        }
        const call = parsed.call;
        if (call.tool === "propose") {
          const proposal: Proposal = { source: "llm", basis, effects: call.effects };
          if (call.reward !== undefined) proposal.reward = call.reward;
          if (call.terminated !== undefined) proposal.terminated = call.terminated;
          return { proposal };
        }
        const last = turn === maxTurns - 2 ? " Your next reply must be propose." : "";
        messages.push({
          role: "user",
          content: `${call.tool} result: ${canonicalJson(toolResult(call, inputs))}${last}`,
        });
      }
      return {
        rejection: {
          stage: "proposal",
          basis: `llm#${attempt}`,
          reason: `the model did not propose within ${maxTurns} turns`,
        },
      };
    },
    reject(reason) {
      messages.push({ role: "user", content: `Your proposal was rejected: ${reason}. Propose again.` });
    },
  };
}
