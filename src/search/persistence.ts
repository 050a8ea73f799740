import { z } from "zod";
import {
  ActionSchema,
  InternalError,
  type Observation,
  type StepRecord,
  StepRecordSchema,
  VerifierResultSchema,
} from "../core/index.ts";
import { NoiseEventRecordSchema } from "../noise/noisy-environment.ts";
import { NOISE_TAGS } from "../noise/tags.ts";
import type { RunStore, TreeNodeRecord } from "../store/contract.ts";
import type { SearchNode } from "./node.ts";

const GateLogSchema = z.object({
  step: z.number().int(),
  reason: z.string(),
  buckets: z.array(z.tuple([z.string(), z.number()])),
  invalid: z.number().int(),
  probes: z.number().int(),
});

/** What a stored node's `data` holds (everything but the live observation, re-derived on resume). */
const StoredNodeSchema = z.object({
  seq: z.number().int().nonnegative(),
  fromStep: z.number().int().nonnegative(),
  prefix: z.array(ActionSchema),
  steps: z.array(StepRecordSchema),
  budget: z.number().int(),
  hasBranched: z.boolean(),
  stateFingerprint: z.string().optional(),
  pending: z
    .object({ action: ActionSchema, raw: z.string(), fingerprint: z.string(), bucketSize: z.number().int() })
    .optional(),
  expectedFingerprint: z.string().optional(),
  envEnded: z.boolean(),
  endReason: z.string().optional(),
  outcome: VerifierResultSchema.optional(),
  dropReason: z.string().optional(),
  gateLog: z.array(GateLogSchema),
  noise: z
    .object({
      noisy: z.boolean(),
      schedule: z.array(
        z.object({ id: z.string(), step: z.number().int(), generator: z.string(), seed: z.number().int() }),
      ),
      events: z.array(NoiseEventRecordSchema).optional(),
      tag: z.enum(NOISE_TAGS as [string, ...string[]]).optional(),
    })
    .optional(),
  round: z.number().int().nonnegative(),
});

function storeScreenshot(store: RunStore, o: Observation): Observation {
  if (!o.screenshot?.bytes) return o;
  const ref = store.putArtefact(o.screenshot.bytes, o.screenshot.mime);
  const { bytes: _bytes, ...rest } = o.screenshot;
  return { ...o, screenshot: { ...rest, sha256: ref.sha256 } };
}

/** A node as a store record; screenshot bytes go to content-addressed artefacts first. */
export function nodeToRecord(node: SearchNode, treeId: string, store: RunStore): TreeNodeRecord {
  const steps: StepRecord[] = node.steps.map((s) => ({
    ...s,
    observation: storeScreenshot(store, s.observation),
  }));
  const { id, parentId, status, observation: _live, steps: _steps, ...rest } = node;
  return { id, treeId, parentId, depth: node.prefix.length, status, data: { ...rest, steps } };
}

export function recordToNode(record: TreeNodeRecord): SearchNode {
  const parsed = StoredNodeSchema.safeParse(record.data);
  if (!parsed.success) {
    throw new InternalError(
      "search.corrupt_node",
      `stored search node ${record.id} does not parse: ${parsed.error.issues[0]?.message ?? "invalid"}; the store may come from an incompatible version`,
    );
  }
  if (
    record.status !== "pending" &&
    record.status !== "alive" &&
    record.status !== "leaf" &&
    record.status !== "dropped"
  ) {
    throw new InternalError(
      "search.corrupt_node",
      `stored search node ${record.id} has status ${record.status}`,
    );
  }
  const d = parsed.data;
  const node: SearchNode = {
    id: record.id,
    parentId: record.parentId,
    status: record.status,
    seq: d.seq,
    fromStep: d.fromStep,
    prefix: d.prefix,
    steps: d.steps,
    budget: d.budget,
    hasBranched: d.hasBranched,
    envEnded: d.envEnded,
    gateLog: d.gateLog as SearchNode["gateLog"],
    round: d.round,
  };
  if (d.stateFingerprint !== undefined) node.stateFingerprint = d.stateFingerprint;
  if (d.pending !== undefined) node.pending = d.pending;
  if (d.expectedFingerprint !== undefined) node.expectedFingerprint = d.expectedFingerprint;
  if (d.endReason !== undefined) node.endReason = d.endReason;
  if (d.outcome !== undefined) node.outcome = d.outcome;
  if (d.dropReason !== undefined) node.dropReason = d.dropReason;
  if (d.noise !== undefined) node.noise = d.noise as NonNullable<SearchNode["noise"]>;
  return node;
}

export function loadTreeNodes(store: RunStore, treeId: string): SearchNode[] {
  return store.listNodes(treeId).map(recordToNode);
}
