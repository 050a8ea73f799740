import { describe, expect, it } from "vitest";
import type { Action } from "../../src/core/index.ts";
import type { Bucket, Bucketing } from "../../src/search/buckets.ts";
import { SearchConfigSchema } from "../../src/search/config.ts";
import { decideBranching, endReason, probesPerNode } from "../../src/search/gates.ts";

const config = SearchConfigSchema.parse({});
const bucket = (fingerprint: string, size: number): Bucket => ({
  fingerprint,
  size,
  representative: { type: "click", elementId: fingerprint },
  raw: fingerprint,
});
const buckets = (...sizes: number[]): Bucketing => ({
  buckets: sizes.map((s, i) => bucket(`b${i}`, s)),
  invalid: 0,
});

describe("probe budget", () => {
  it("K = max(1, min(kMax, ceil(budget / alive))), 1 when no slot is free", () => {
    expect(probesPerNode(1, config, 4)).toBe(32);
    expect(probesPerNode(3, config, 4)).toBe(11);
    expect(probesPerNode(5, config, 1)).toBe(7);
    expect(probesPerNode(64, config, 1)).toBe(1);
    expect(probesPerNode(1, SearchConfigSchema.parse({ kMax: 8 }), 4)).toBe(8);
    expect(probesPerNode(2, config, 0)).toBe(1);
  });
});

describe("branching gates, in order", () => {
  const fresh = { step: 0, budget: 5, hasBranched: false };

  it("branches into the next buckets up to the per-step cap; the parent keeps the top one", () => {
    const d = decideBranching(fresh, buckets(10, 8, 5, 3), config);
    expect(d.reason).toBe("branch");
    expect(d.primary?.fingerprint).toBe("b0");
    expect(d.children.map((b) => b.fingerprint)).toEqual(["b1", "b2"]);
  });

  it("needs at least two valid buckets (min bucket size)", () => {
    expect(decideBranching(fresh, buckets(32), config).reason).toBe("single_bucket");
    const strict = SearchConfigSchema.parse({ minBucketSize: 3 });
    expect(decideBranching(fresh, buckets(20, 2, 2), strict).reason).toBe("single_bucket");
    expect(decideBranching(fresh, buckets(20, 3, 2), strict).children.map((b) => b.fingerprint)).toEqual([
      "b1",
    ]);
    expect(decideBranching(fresh, { buckets: [], invalid: 4 }, config)).toEqual({
      reason: "no_valid_bucket",
      primary: null,
      children: [],
    });
  });

  it("defers a node's first branching from the late step on, but not a node that branched before", () => {
    expect(decideBranching({ step: 9, budget: 5, hasBranched: false }, buckets(2, 2), config).reason).toBe(
      "branch",
    );
    expect(decideBranching({ step: 10, budget: 5, hasBranched: false }, buckets(2, 2), config).reason).toBe(
      "late_step_deferral",
    );
    expect(decideBranching({ step: 10, budget: 1, hasBranched: true }, buckets(2, 2), config).reason).toBe(
      "branch",
    );
  });

  it("stops at an exhausted budget, then at the hard cutoff", () => {
    expect(decideBranching({ step: 3, budget: 0, hasBranched: true }, buckets(2, 2), config).reason).toBe(
      "budget_exhausted",
    );
    const cut = SearchConfigSchema.parse({ hardCutoff: 4, lateStepDeferral: 100 });
    expect(decideBranching({ step: 3, budget: 2, hasBranched: false }, buckets(2, 2), cut).reason).toBe(
      "branch",
    );
    expect(decideBranching({ step: 4, budget: 2, hasBranched: false }, buckets(2, 2), cut).reason).toBe(
      "hard_cutoff",
    );
    // Gate order: deferral is checked before the budget.
    expect(decideBranching({ step: 12, budget: 0, hasBranched: false }, buckets(2, 2), config).reason).toBe(
      "late_step_deferral",
    );
  });

  it("a per-step cap of 0 never branches; a cap of 1 explores two behaviours", () => {
    expect(decideBranching(fresh, buckets(3, 2, 1), SearchConfigSchema.parse({ perStepCap: 0 })).reason).toBe(
      "per_step_cap",
    );
    expect(
      decideBranching(fresh, buckets(3, 2, 1), SearchConfigSchema.parse({ perStepCap: 1 })).children,
    ).toHaveLength(1);
  });
});

describe("pruning and node end", () => {
  const click: Action = { type: "click", elementId: "1" };
  const other: Action = { type: "click", elementId: "2" };
  const wait: Action = { type: "wait", ms: 500 };

  it("ends on done, fail and environment termination", () => {
    expect(endReason([click, { type: "done" }], false, config)).toBe("done");
    expect(endReason([{ type: "fail" }], false, config)).toBe("fail");
    expect(endReason([click], true, config)).toBe("terminated");
    expect(endReason([click], false, config)).toBeNull();
  });

  it("ends after 3 identical consecutive actions, not 2, and not 3 with a gap", () => {
    expect(endReason([click, click], false, config)).toBeNull();
    expect(endReason([click, click, click], false, config)).toBe("repeated_action");
    expect(endReason([click, click, other, click], false, config)).toBeNull();
  });

  it("ends after 2 consecutive waits (of any duration)", () => {
    expect(endReason([wait], false, config)).toBeNull();
    expect(endReason([click, wait, { type: "wait", ms: 100 }], false, config)).toBe("consecutive_waits");
    expect(endReason([wait, click, wait], false, config)).toBeNull();
  });

  it("ends at the horizon", () => {
    const alternating = Array.from({ length: 15 }, (_, i) => (i % 2 ? click : other));
    expect(endReason(alternating.slice(0, 14), false, config)).toBeNull();
    expect(endReason(alternating, false, config)).toBe("horizon");
  });
});
