import { z } from "zod";
import type { Action, StateRecord } from "../../core/index.ts";
import type { Effect, Fact, Rule, Worldbook } from "../worldbook/schema.ts";

/**
 * The world-model runtime's contract. A step of the simulation, for one action on the committed state:
 * retrieve candidate rules → applicability gate → proposal (ordered effects, outcome) → validation gate
 * (apply to a copy; check schema, rule support, invariants) → commit only what passes. A rejected
 * proposal never changes the committed state; the rejection is recorded with its reason.
 */

/** How the applicability gate judged a candidate rule against the current state. */
export const GateVerdictSchema = z.enum([
  /** Every condition holds on known state, the rule is supported, its confidence above the threshold. */
  "supporting",
  /** A condition reads a path the state does not hold (unknown), or the rule is tentative or out of scope. */
  "uncertain",
  /** The action matches the rule's action schema only (type and arguments), nothing about the state. */
  "format-only",
  /** A condition is false on known state, or the rule is conflicted or below the threshold. */
  "contradicted",
]);
export type GateVerdict = z.infer<typeof GateVerdictSchema>;

export interface Candidate {
  rule: Rule;
  verdict: GateVerdict;
  /** Why: the condition that failed or read unknown state, the status, the confidence. */
  reason: string;
}

/** Where a proposal came from. */
export const ProposalSourceSchema = z.enum(["rules", "retrieval", "llm", "copy"]);
export type ProposalSource = z.infer<typeof ProposalSourceSchema>;

/** q_t: the ordered effects (paths concrete, values resolved) and the outcome a proposer predicts. */
export interface Proposal {
  source: ProposalSource;
  /** The rule (rules), evidence id (retrieval) or model call (llm) it came from. */
  basis?: string;
  /** The rule outcome chosen, for a rule proposal. */
  outcome?: number;
  effects: Effect[];
  /** Predicted reward and termination; absent means: decide by the worldbook's outcome rules. */
  reward?: number;
  terminated?: boolean;
}

/** One possible next state with its probability (a stochastic rule gives several). */
export interface WeightedProposal {
  proposal: Proposal;
  probability: number;
}

export const RejectionStageSchema = z.enum(["applicability", "proposal", "validation"]);
export interface Rejection {
  stage: z.infer<typeof RejectionStageSchema>;
  /** The rule, evidence id or model call rejected, when there is one. */
  basis?: string;
  reason: string;
}

/** What a step does when no proposal passes the validation gate. */
export const OnRejectSchema = z.enum([
  /** Ask the proposer again (up to `maxRetries`), then abstain. */
  "retry",
  /** Keep the committed state, show an explicit "unknown" observation, reward 0, not terminated. */
  "abstain",
  /** Propose from the nearest grounded evidence instead, through the same validation gate; then abstain. */
  "retrieval",
]);
export type OnReject = z.infer<typeof OnRejectSchema>;

/**
 * The systems the evaluation compares, each a runtime configuration:
 * - copy: next state = current state;
 * - retrieval: the nearest build transition's effects, no gates;
 * - rules: the worldbook's rules without the gates (the most specific matching rule's outcomes, as listed);
 * - gates: retrieval proposals through the validation gate;
 * - full: rules through both gates, retrieval as the fallback (`onReject`).
 */
export const SimulatorSystemSchema = z.enum(["copy", "retrieval", "rules", "gates", "full"]);
export type SimulatorSystem = z.infer<typeof SimulatorSystemSchema>;

export const SimulatorOptionsSchema = z
  .object({
    system: SimulatorSystemSchema.default("full"),
    /** Rules below this confidence are not applied (contradicted). */
    confidenceThreshold: z.number().min(0).max(1).default(0.55),
    onReject: OnRejectSchema.default("retrieval"),
    maxRetries: z.number().int().nonnegative().default(2),
    /** Ablations: use the grounded evidence (retrieval), the abstractions (rules, invariants), or both. */
    useEvidence: z.boolean().default(true),
    useAbstractions: z.boolean().default(true),
    /** Proposer for the full system: the rule engine, or an LLM tool loop (needs `llm`). */
    proposer: z.enum(["rules", "llm"]).default("rules"),
    /** The LLM proposer's turn budget per attempt (tool calls plus the final `propose`). */
    llmMaxTurns: z.number().int().positive().default(6),
  })
  .strict();
export type SimulatorOptionsInput = z.input<typeof SimulatorOptionsSchema>;
export type SimulatorOptions = z.output<typeof SimulatorOptionsSchema>;

/** What a step of the simulation recorded: it goes into the environment step's `info.worldmodel`. */
export interface SimulationTrace {
  system: SimulatorSystem;
  candidates: Array<{ rule: string; verdict: GateVerdict; reason: string }>;
  /** Rules (or evidence ids) whose proposal was committed. */
  fired: string[];
  rejected: Rejection[];
  /** True when the step abstained: the state did not change and the observation says "unknown". */
  unknown: boolean;
  /** For a stochastic rule: the outcome index drawn and its probability. */
  outcome?: { index: number; probability: number };
}

export interface SimulationStep {
  /** The committed next state (a new record; the input state is never changed). */
  state: StateRecord;
  reward: number;
  terminated: boolean;
  trace: SimulationTrace;
}

/** A committed step of the episode, as the workspace's episodic memory keeps it. */
export interface MemoryEntry {
  /** The action group key (`actionKey`). */
  action: string;
  /** The changed paths with their before/after values. */
  facts: Fact[];
  effects: Effect[];
  reward: number;
  terminated: boolean;
  /** The state the step started from (retrieval measures nearness on it). */
  before?: StateRecord;
}

/** The episode context a step runs in. */
export interface StepContext {
  taskId: string;
  /** This episode's committed steps (the workspace's episodic memory); retrieval prefers them. */
  memory?: ReadonlyArray<MemoryEntry>;
}

/**
 * The simulator of one worldbook. `predict` gives the distribution over committed next states (no
 * sampling; used by the evaluation's total-variation distance), `step` draws one with the given random
 * number in [0, 1) (the caller's seeded stream, so snapshots stay exact).
 */
export interface Simulator {
  readonly options: SimulatorOptions;
  readonly book: Worldbook;
  predict(
    state: StateRecord,
    action: Action,
    context: StepContext,
  ): Promise<Array<{ step: SimulationStep; probability: number }>>;
  step(state: StateRecord, action: Action, context: StepContext, draw: number): Promise<SimulationStep>;
}
