import { z } from "zod";
import type { Task } from "../../core/index.ts";
import {
  ObservationSchema,
  StateFieldSpecSchema,
  StateRecordSchema,
  StateValueSchema,
  TaskSchema,
} from "../../core/index.ts";
import { SplitManifestSchema } from "../splits.ts";

/** The worldbook format version the manifest carries; readers refuse other versions. */
export const WORLDBOOK_VERSION = 1;

/** Where a piece of evidence came from: the trace source, the episode and the step within it. */
export const ProvenanceSchema = z
  .object({
    source: z.string().min(1),
    episodeId: z.string().min(1),
    taskId: z.string().min(1),
    step: z.number().int().nonnegative(),
  })
  .strict();
export type Provenance = z.infer<typeof ProvenanceSchema>;

export const ConditionOpSchema = z.enum([
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "exists",
  "not_exists",
  "contains",
  "in",
]);
export type ConditionOp = z.infer<typeof ConditionOpSchema>;

/**
 * A test on one state path; `value` is absent for exists/not_exists and a list for `in`. A path may hold
 * `{arg}` parts filled from the action's arguments (`el.{elementId}.checked`), see `Rule.params`.
 */
export const ConditionSchema = z
  .object({ path: z.string().min(1), op: ConditionOpSchema, value: StateValueSchema.optional() })
  .strict();
export type Condition = z.infer<typeof ConditionSchema>;

export const EffectOpSchema = z.enum(["set", "delete", "increment", "decrement", "append", "remove"]);
export type EffectOp = z.infer<typeof EffectOpSchema>;

/** A number read from a state path plus an offset: `{ path: "map.rows", offset: -1 }`. */
export const BoundRefSchema = z.object({ path: z.string().min(1), offset: z.number() }).strict();
export type BoundRef = z.infer<typeof BoundRefSchema>;

/**
 * One change to one path. `value`: the new value (set), the amount (increment/decrement), the items
 * (append/remove); absent for delete. `bounds`: an increment or decrement stops at the range the
 * path was observed in (a move into a wall leaves the position where it is). `path` may hold `{arg}`
 * parts filled from the action's arguments. `from`: the value is not a constant but read when the rule
 * applies, from `action.<arg>` (the typed text) or `state.<path>` (path may hold `{arg}` parts);
 * `value` is then absent.
 */
export const EffectSchema = z
  .object({
    op: EffectOpSchema,
    path: z.string().min(1),
    value: StateValueSchema.optional(),
    from: z
      .string()
      .regex(/^(action|state)\..+$/)
      .optional(),
    bounds: z
      .object({
        min: z.number(),
        max: z.number(),
        /**
         * A bound read from the state when the rule applies: `state[path] + offset` (e.g. `map.rows`
         * − 1), used instead of `min`/`max` when the state holds that number (per-map bounds).
         */
        minFrom: BoundRefSchema.optional(),
        maxFrom: BoundRefSchema.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type Effect = z.infer<typeof EffectSchema>;

/** A changed path: its value before and after (absent = the path was not in that state). */
export const FactSchema = z
  .object({
    path: z.string().min(1),
    before: StateValueSchema.optional(),
    after: StateValueSchema.optional(),
  })
  .strict();
export type Fact = z.infer<typeof FactSchema>;

export const OutcomeSchema = z
  .object({ reward: z.number(), terminated: z.boolean(), truncated: z.boolean() })
  .strict();

/** How the rule engine used a transition: counted for one outcome, withheld (with why), or against the rule. */
export const AttributionSchema = z.discriminatedUnion("status", [
  z
    .object({ status: z.literal("attributed"), rule: z.string(), outcome: z.number().int().nonnegative() })
    .strict(),
  z.object({ status: z.literal("withheld"), rule: z.string(), reason: z.string().min(1) }).strict(),
  z.object({ status: z.literal("counterexample"), rule: z.string() }).strict(),
]);
export type Attribution = z.infer<typeof AttributionSchema>;

/** One transition aligned into observed facts and candidate effects. */
export const EvidenceSchema = z
  .object({
    id: z.string().min(1),
    provenance: ProvenanceSchema,
    /** The action group key (`type` plus its arguments, canonical JSON). */
    action: z.string().min(1),
    facts: z.array(FactSchema),
    effects: z.array(EffectSchema),
    outcome: OutcomeSchema,
    attribution: AttributionSchema,
  })
  .strict();
export type Evidence = z.infer<typeof EvidenceSchema>;

export const ArgumentSpecSchema = z
  .object({
    name: z.string().min(1),
    type: z.enum(["string", "number", "boolean", "null", "object", "list"]),
    values: z.array(z.unknown()),
  })
  .strict();
export const ActionSpecSchema = z
  .object({ type: z.string().min(1), arguments: z.array(ArgumentSpecSchema), count: z.number().int() })
  .strict();
export type ActionSpec = z.infer<typeof ActionSpecSchema>;

export const SchemasSchema = z
  .object({ actions: z.array(ActionSpecSchema), fields: z.array(StateFieldSpecSchema) })
  .strict();
export type Schemas = z.infer<typeof SchemasSchema>;

export const RuleStatusSchema = z.enum(["supported", "tentative", "conflicted"]);
export type RuleStatus = z.infer<typeof RuleStatusSchema>;

/** One possible result of a rule: its ordered effects, how often it was seen and its estimated probability. */
export const RuleOutcomeSchema = z
  .object({ effects: z.array(EffectSchema), count: z.number().int().nonnegative(), probability: z.number() })
  .strict();

export const RuleSchema = z
  .object({
    id: z.string().min(1),
    /** The action group: its type and the argument values it requires (arguments in `params` are free). */
    action: z.record(z.string(), z.unknown()),
    /**
     * Action arguments the rule is lifted over: any value is accepted and fills `{arg}` parts of
     * condition and effect paths (`click` on any `elementId`). Empty for a rule of one action group.
     */
    params: z.array(z.string()).default([]),
    /** The tasks whose traces gave the rule's evidence (sorted); outside them a rule is only uncertain. */
    scope: z.object({ tasks: z.array(z.string()) }).strict(),
    conditions: z.array(ConditionSchema),
    /** One outcome with probability 1 for a deterministic rule; a distribution with counts otherwise. */
    outcomes: z.array(RuleOutcomeSchema).min(1),
    stochastic: z.boolean(),
    support: z.number().int().nonnegative(),
    counterexamples: z.number().int().nonnegative(),
    withheld: z.number().int().nonnegative(),
    confidence: z.number().min(0).max(1),
    status: RuleStatusSchema,
    /** Evidence ids counted for it (attributed), first ones only when `maxEvidencePerRule` caps them. */
    evidence: z.array(z.string()),
  })
  .strict();
export type Rule = z.infer<typeof RuleSchema>;

/**
 * An outcome field (reward, terminated) that a next-state condition decides exactly in the traces; or,
 * with `field: "state"` and `path`, a consequence rule: a derived state path (`status`, `done`, see
 * `WorldbookOptions.derivedPaths`) that takes `value` in the next state when `when` holds there.
 */
export const OutcomeRuleSchema = z
  .object({
    field: z.enum(["reward", "terminated", "state"]),
    path: z.string().min(1).optional(),
    value: StateValueSchema,
    when: ConditionSchema,
    support: z.number().int().nonnegative(),
  })
  .strict();
export type OutcomeRule = z.infer<typeof OutcomeRuleSchema>;

export const RulesFileSchema = z
  .object({ rules: z.array(RuleSchema), outcomeRules: z.array(OutcomeRuleSchema) })
  .strict();

export const InvariantsSchema = z
  .object({
    /** Field patterns no transition changed within an episode. */
    constantWithinEpisode: z.array(z.string()),
    ranges: z.array(z.object({ path: z.string(), min: z.number(), max: z.number() }).strict()),
    values: z.array(z.object({ path: z.string(), values: z.array(StateValueSchema) }).strict()),
    /** Numeric ranges per task (sorted by task, then path), where one map's range differs from another's. */
    taskRanges: z
      .array(z.object({ task: z.string(), path: z.string(), min: z.number(), max: z.number() }).strict())
      .optional(),
  })
  .strict();
export type Invariants = z.infer<typeof InvariantsSchema>;

/** A derived state field: `template` names a path with `{other.path}` parts filled from the state. */
export const LookupSchema = z.object({ name: z.string().min(1), template: z.string().min(1) }).strict();
export type Lookup = z.infer<typeof LookupSchema>;

export const WorldbookOptionsSchema = z
  .object({
    /** Below this many attributed transitions a rule is tentative. */
    minSupport: z.number().int().positive().default(5),
    /** Value sets longer than this are left out of the invariants. */
    maxValues: z.number().int().positive().default(32),
    /** Cap on evidence ids listed per rule (all evidence is kept in evidence.json). */
    maxEvidencePerRule: z.number().int().positive().default(50),
    /** Derived fields (a family hint), e.g. the tile under the agent. */
    lookups: z.array(LookupSchema).default([]),
    /**
     * State paths that follow from the next state (FrozenLake's `status`/`done`): left out of effect
     * sets and predicted by consequence rules (`OutcomeRule` with `field: "state"`). A family default,
     * given by the caller (`worldbookDefaultsFor`).
     */
    derivedPaths: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type WorldbookOptionsInput = z.input<typeof WorldbookOptionsSchema>;
export type WorldbookOptions = z.output<typeof WorldbookOptionsSchema>;

/** Where an episode began: what reset showed, and its state. The world model's reset starts from these. */
export const StartSchema = z
  .object({
    taskId: z.string().min(1),
    episodeId: z.string().min(1),
    seed: z.number().int().optional(),
    observation: ObservationSchema,
    state: StateRecordSchema,
  })
  .strict();
export type Start = z.infer<typeof StartSchema>;

export const WORLDBOOK_FILES = [
  "schemas.json",
  "evidence.json",
  "rules.json",
  "invariants.json",
  "starts.json",
  "tasks.json",
] as const;

/** Files a worldbook holds only when its build made them (`reviews.json`: after an LLM-assisted build). */
export const OPTIONAL_WORLDBOOK_FILES = ["reviews.json", "contracts.json", "notes.json"] as const;

/** Which observation fields every observation of a family had (`text`, `legalActions`, `axtree`, ...). */
export const ObservationContractSchema = z
  .object({ family: z.string().min(1), fields: z.array(z.string()), observations: z.number().int() })
  .strict();
export type ObservationContract = z.infer<typeof ObservationContractSchema>;
export const ContractsFileSchema = z.array(ObservationContractSchema);
/** Plain-language lines, one per supported rule and consequence rule, in rule order. */
export const NotesFileSchema = z.array(z.string());

const ReviewCountsSchema = z
  .object({
    support: z.number().int().nonnegative(),
    counterexamples: z.number().int().nonnegative(),
    status: RuleStatusSchema,
  })
  .strict();

/**
 * One LLM review of a tentative or conflicted rule: the model's proposed separating condition and note,
 * accepted only when re-checking the condition against the build evidence lowered the counterexamples.
 */
export const ReviewSchema = z
  .object({
    rule: z.string().min(1),
    status: z.enum(["accepted", "rejected"]),
    /** Why it was accepted or rejected (an unparseable answer is rejected with the parse problem). */
    reason: z.string().min(1),
    condition: ConditionSchema.optional(),
    note: z.string().optional(),
    /** The evidence ids shown to the model. */
    evidence: z.array(z.string()),
    before: ReviewCountsSchema,
    /** The rule's counts with the condition added (accepted reviews only). */
    after: ReviewCountsSchema.optional(),
    /** The model's answer as received. */
    raw: z.string(),
  })
  .strict();
export type Review = z.infer<typeof ReviewSchema>;

export const ReviewsFileSchema = z
  .object({
    model: z.string().min(1),
    reviews: z.array(ReviewSchema),
    /** Tentative or conflicted rules left unreviewed (past the build's cap on reviews). */
    unreviewed: z.array(z.string()),
  })
  .strict();
export type ReviewsFile = z.infer<typeof ReviewsFileSchema>;

export const ManifestSchema = z
  .object({
    version: z.literal(WORLDBOOK_VERSION),
    families: z.array(z.string()),
    sources: z.array(z.string()),
    episodes: z.number().int().nonnegative(),
    transitions: z.number().int().nonnegative(),
    options: WorldbookOptionsSchema,
    /** The split the build traces were taken from (seed, fractions, episode ids per split), when split. */
    split: SplitManifestSchema.optional(),
    /** sha256 of each file's canonical JSON. */
    files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

export interface Worldbook {
  manifest: Omit<Manifest, "files">;
  schemas: Schemas;
  evidence: Evidence[];
  rules: Rule[];
  outcomeRules: OutcomeRule[];
  invariants: Invariants;
  /** The first state of every build episode, in episode order. */
  starts: Start[];
  /** The tasks of the build episodes (given to the build, or made from the starts), by id. */
  tasks: Task[];
  /** The LLM reviews of an LLM-assisted build (`reviews.json`); absent for a deterministic build. */
  reviews?: ReviewsFile;
  /** Observation contracts per family (`contracts.json`); absent in books built before them. */
  contracts?: ObservationContract[];
  /** One plain-language line per supported rule (`notes.json`); absent in books built before them. */
  notes?: string[];
}

export const StartsFileSchema = z.array(StartSchema);
export const TasksFileSchema = z.array(TaskSchema);
