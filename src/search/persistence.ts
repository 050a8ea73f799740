import { z } from "zod";
import { type Observation, type StepRecord, UserError } from "../core/index.ts";
import type { RunStore, TreeNodeRecord, TreeRecord } from "../store/contract.ts";
import { NODE_STATUSES, type SearchNode, StoredNodeDataSchema } from "./node.ts";
import { type TreeCounters, TreeCountersSchema, zeroCounters } from "./tree-state.ts";

/** The code of the UserError for a stored search node or tree whose data does not parse. */
export const CORRUPT_NODE = "search.corrupt_node";

const NodeStatusSchema = z.enum(NODE_STATUSES);

/** What a stored tree's `data` holds that search reads back. */
const StoredTreeDataSchema = z.object({ counters: TreeCountersSchema.optional() });

function damaged(what: string, error: z.ZodError, details: Record<string, string>): UserError {
  return new UserError(
    CORRUPT_NODE,
    `reading ${what} from the run store failed:\n${z.prettifyError(error)}\nThe store was written by an incompatible Rehearsal version or edited by hand; search again under a new run id or restore the store from a backup.`,
    { cause: error, details },
  );
}

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

/** A stored node back, its data parsed; a damaged one is a UserError naming the tree and the node. */
export function recordToNode(record: TreeNodeRecord): SearchNode {
  const details = { tree: record.treeId, node: record.id };
  const what = `search node ${record.id} of tree ${record.treeId}`;
  const status = NodeStatusSchema.safeParse(record.status);
  if (!status.success) throw damaged(`the status of ${what}`, status.error, details);
  const data = StoredNodeDataSchema.safeParse(record.data);
  if (!data.success) throw damaged(what, data.error, details);
  return { id: record.id, parentId: record.parentId, status: status.data, ...data.data };
}

export function loadTreeNodes(store: RunStore, treeId: string): SearchNode[] {
  return store.listNodes(treeId).map(recordToNode);
}

/** A stored tree's counters (zeros for a new tree or fields an older version did not store). */
export function storedCounters(tree: TreeRecord | undefined): TreeCounters {
  if (!tree) return zeroCounters();
  const data = StoredTreeDataSchema.safeParse(tree.data);
  if (!data.success) throw damaged(`the counters of search tree ${tree.id}`, data.error, { tree: tree.id });
  return data.data.counters ?? zeroCounters();
}
