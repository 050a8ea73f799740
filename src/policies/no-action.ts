import type { Candidate } from "../core/policy.ts";

/** The candidate of a policy that has nothing to choose from (no legal action): no action, a parse error. */
export function noActionCandidate(code: string, message: string): Candidate {
  return { action: null, raw: "", parseError: { code, message } };
}
