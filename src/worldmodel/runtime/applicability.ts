import type { StateRecord } from "../../core/index.ts";
import type { ActionArgs } from "../worldbook/conditions.ts";
import { evaluateConditions } from "../worldbook/conditions.ts";
import type { Condition, Rule } from "../worldbook/schema.ts";
import type { Candidate, StepContext } from "./contract.ts";

function describe(c: Condition | undefined): string {
  if (!c) return "a condition";
  return c.value === undefined ? `${c.path} ${c.op}` : `${c.path} ${c.op} ${JSON.stringify(c.value)}`;
}

/**
 * The applicability gate for one candidate rule: contradicted when the rule is conflicted, below the
 * confidence threshold or a condition is false on known state; uncertain when it is tentative, the task
 * is outside its scope or a condition reads a path the state does not hold (unknown, never false);
 * format-only when the rule has no conditions at all (only the action matched); supporting otherwise.
 */
export function judgeRule(
  rule: Rule,
  state: StateRecord,
  action: ActionArgs,
  context: StepContext,
  threshold: number,
): Candidate {
  const verdict = (v: Candidate["verdict"], reason: string): Candidate => ({ rule, verdict: v, reason });
  if (rule.status === "conflicted")
    return verdict("contradicted", `status conflicted (${rule.counterexamples} counterexamples)`);
  if (rule.confidence < threshold)
    return verdict("contradicted", `confidence ${rule.confidence.toFixed(3)} below threshold ${threshold}`);
  const { result, failed } = evaluateConditions(rule.conditions, state, action);
  if (result === false) return verdict("contradicted", `condition ${describe(failed)} is false`);
  if (result === "unknown") return verdict("uncertain", `condition ${describe(failed)} reads unknown state`);
  if (rule.status === "tentative") return verdict("uncertain", `status tentative (support ${rule.support})`);
  if (rule.scope.tasks.length > 0 && !rule.scope.tasks.includes(context.taskId))
    return verdict("uncertain", `task ${context.taskId} is outside the rule's scope`);
  if (rule.conditions.length === 0) return verdict("format-only", "no conditions: only the action matched");
  return verdict(
    "supporting",
    `conditions hold, supported (support ${rule.support}, confidence ${rule.confidence.toFixed(3)})`,
  );
}
