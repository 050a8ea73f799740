import { describe, expect, it } from "vitest";
import { isRehearsalError, type RehearsalError } from "../../src/core/index.ts";
import {
  CORRUPT_NODE,
  nodeToRecord,
  recordToNode,
  type SearchNode,
  storedCounters,
  zeroCounters,
} from "../../src/search/index.ts";
import { createMemoryStore, type TreeNodeRecord, type TreeRecord } from "../../src/store/index.ts";
import { searchFrozenLake } from "./helpers.ts";

function thrown(f: () => unknown): RehearsalError {
  try {
    f();
  } catch (e) {
    if (isRehearsalError(e)) return e;
    throw e;
  }
  throw new Error("expected a RehearsalError");
}

/** A real tree's nodes (FrozenLake search) and one of them as a store record. */
async function storedTree(): Promise<{ nodes: SearchNode[]; treeId: string }> {
  const { result } = await searchFrozenLake({ tasks: ["4x4"] });
  const nodes = [...(result.tasks[0]?.nodes.values() ?? [])];
  return { nodes, treeId: nodes[0]?.id.split("/")[0] ?? "" };
}

const withNoise = (node: SearchNode): SearchNode => ({
  ...node,
  noise: {
    noisy: true,
    schedule: [{ id: "e1", step: 1, generator: "toast-info", seed: 7 }],
    events: [{ id: "e1", generator: "toast-info", tier: "T2", cost: 1, seed: 7, step: 1, recoveredAt: 2 }],
    tag: "recovery_success",
  },
});

describe("stored search nodes", () => {
  it("read back equal to the nodes written (leaves, pending children, gate logs, noise), live observation aside", async () => {
    const { nodes, treeId } = await storedTree();
    const store = createMemoryStore();
    const leaf = nodes.find((n) => n.status === "leaf" && n.gateLog.length > 0) as SearchNode;
    expect(leaf.outcome).toBeDefined();
    const pending: SearchNode = {
      ...leaf,
      status: "pending",
      pending: {
        action: { type: "move", direction: "down" },
        raw: "down",
        fingerprint: "move:down",
        bucketSize: 2,
      },
      expectedFingerprint: "abc",
      stateFingerprint: "def",
      observation: leaf.steps[0]?.observation as NonNullable<SearchNode["observation"]>,
    };
    for (const node of [...nodes, pending, withNoise(leaf)]) {
      const record = JSON.parse(JSON.stringify(nodeToRecord(node, treeId, store))) as TreeNodeRecord;
      const { observation: _live, ...expected } = node;
      expect(recordToNode(record)).toEqual(expected);
    }
  });

  it("a damaged node is a user error naming the tree, the node and what is wrong", async () => {
    const { nodes, treeId } = await storedTree();
    const node = nodes.find((n) => n.gateLog.length > 0) as SearchNode;
    const record = nodeToRecord(node, treeId, createMemoryStore());
    const damaged: TreeNodeRecord[] = [
      { ...record, data: { ...record.data, gateLog: [{ ...node.gateLog[0], reason: "made_up" }] } },
      { ...record, data: { ...record.data, seq: "three" } },
      { ...record, data: { ...withNoise(node), noise: { noisy: true, schedule: [], tag: "lucky" } } },
      { ...record, status: "pruned" },
    ];
    for (const bad of damaged) {
      const err = thrown(() => recordToNode(bad));
      expect(err.code).toBe(CORRUPT_NODE);
      expect(err.category).toBe("user");
      expect(err.message).toContain(node.id);
      expect(err.message).toContain(treeId);
      expect(err.message).toMatch(/new run id|backup/);
      expect(err.details).toEqual({ tree: treeId, node: node.id });
    }
  });
});

describe("stored tree counters", () => {
  const tree = (data: Record<string, unknown>): TreeRecord => ({
    id: "run:4x4",
    runId: "run",
    taskId: "4x4",
    seed: 1,
    status: "running",
    data,
  });

  it("read back with zeros for a new tree and for fields an older version did not store", () => {
    expect(storedCounters(undefined)).toEqual(zeroCounters());
    expect(storedCounters(tree({}))).toEqual(zeroCounters());
    expect(storedCounters(tree({ counters: { rounds: 3, envSteps: 40 } }))).toEqual({
      ...zeroCounters(),
      rounds: 3,
      envSteps: 40,
    });
  });

  it("damaged counters are a user error naming the tree", () => {
    const err = thrown(() => storedCounters(tree({ counters: { rounds: "many" } })));
    expect(err.code).toBe(CORRUPT_NODE);
    expect(err.category).toBe("user");
    expect(err.message).toContain("run:4x4");
  });
});
