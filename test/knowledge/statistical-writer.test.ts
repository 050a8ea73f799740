import { describe, expect, it } from "vitest";
import { describeFrozenLakeKey, FROZENLAKE_TERMS } from "../../src/experiments/index.ts";
import {
  createKnowledgeTable,
  createStatisticalWriter,
  ExperienceBuffer,
  type PathKnowledgeFields,
  PathKnowledgeFieldsSchema,
  type StateKnowledgeFields,
  StateKnowledgeFieldsSchema,
  wilson,
} from "../../src/knowledge/index.ts";
import { episode, step } from "./helpers.ts";

const S = "frozenlake:m#d:(1,2)";
const X = "frozenlake:m#d:(1,3)";
const G = "frozenlake:m#d:(2,3)";
const H = "frozenlake:m#d:(2,2)";

function stateFields(fields: unknown): StateKnowledgeFields {
  return StateKnowledgeFieldsSchema.parse(fields);
}

/** Five visits of S: down fell in a hole twice, down slid to X once; right reached the goal via X. */
function buffer(): ExperienceBuffer {
  const b = new ExperienceBuffer();
  b.add(episode("e1", 0, [step(S, "down", H, { terminal: true, slipped: false })]));
  b.add(
    episode("e2", 0, [
      step(S, "down", X, { slipped: true }),
      step(X, "down", G, { terminal: true, reward: 1, slipped: false }),
    ]),
  );
  b.add(episode("e3", 1, [step(S, "down", H, { terminal: true, slipped: false })]));
  b.add(
    episode("e4", 1, [
      step(S, "right", X, { slipped: false }),
      step(X, "down", G, { terminal: true, reward: 1, slipped: false }),
    ]),
  );
  b.add(
    episode("e5", 1, [
      step(S, "right", X, { slipped: false }),
      step(X, "left", S, { truncated: true, slipped: false }),
    ]),
  );
  return b;
}

describe("statistical writer", () => {
  it("aggregates Monte Carlo continuations into counts, Wilson rates and values", async () => {
    const frozenLake = { describeState: describeFrozenLakeKey, terms: FROZENLAKE_TERMS };
    const writer = createStatisticalWriter({ gamma: 0.5, ...frozenLake });
    const b = buffer();
    const continuations = b.continuations(S, { n: 10, h: 15 });
    expect(continuations.map((c) => c.episodeId)).toEqual(["e5", "e4", "e3", "e2", "e1"]);
    const draft = await writer.understand({ key: S, epoch: 1, prior: undefined, continuations });
    expect(draft).not.toBeNull();
    const f = stateFields(draft?.fields);
    const down = f.actions.down;
    const right = f.actions.right;
    expect(down).toMatchObject({ n: 3, deaths: 2, goals: 0, slipKnown: 3, moved: 2, mcN: 3 });
    expect(down?.deathRate).toBeCloseTo(2 / 3, 6);
    const w = wilson(2, 3);
    expect(down?.deathLow).toBeCloseTo(w.low, 6);
    expect(down?.deathHigh).toBeCloseTo(w.high, 6);
    // Returns (γ 0.5, death penalty 1): e1 -1, e2 0 + 0.5·1 = 0.5, e3 -1 → mean -0.5.
    expect(down?.q).toBeCloseTo(-0.5, 6);
    // e4: 0 + 0.5·1 = 0.5; e5: 0 + 0 (cut by the horizon, no penalty) → 0.25.
    expect(right).toMatchObject({ n: 2, deaths: 0, goals: 0, moved: 2, mcN: 2 });
    expect(right?.q).toBeCloseTo(0.25, 6);
    expect(f.value).toBeCloseTo(0.25, 6);
    expect(f.bestAction).toBe("right");
    expect(f.visits).toBe(5);
    expect(draft?.text).toContain("From (1,2): moving down fell into a hole 2/3 (67%)");
    // Without an environment's words and names: the key itself and neutral terms.
    const generic = await createStatisticalWriter({ gamma: 0.5 }).understand({
      key: S,
      epoch: 1,
      prior: undefined,
      continuations,
    });
    expect(generic?.text).toContain(`From ${S}: taking down ended in failure 2/3 (67%)`);
    expect(draft?.provenance.episodeIds).toEqual(["e5", "e4", "e3", "e2", "e1"]);
    expect(draft?.provenance.continuationIds).toContain("mc:e1#0+1");
  });

  it("counts each continuation once across updates and skips when nothing is new", async () => {
    const writer = createStatisticalWriter({ gamma: 0.5 });
    const table = createKnowledgeTable();
    const b = buffer();
    const first = await writer.understand({
      key: S,
      epoch: 1,
      prior: undefined,
      continuations: b.continuations(S, { n: 2, h: 15 }),
    });
    const w1 = await table.write({
      key: S,
      epoch: 1,
      expectedVersion: 0,
      ...(first as NonNullable<typeof first>),
    });
    expect(w1.written).toBe(true);
    const again = await writer.understand({
      key: S,
      epoch: 1,
      prior: table.read(S),
      continuations: b.continuations(S, { n: 2, h: 15 }),
    });
    expect(again).toBeNull();
    const all = await writer.understand({
      key: S,
      epoch: 2,
      prior: table.read(S),
      continuations: b.continuations(S, { n: 10, h: 15 }),
    });
    const f = stateFields(all?.fields);
    expect(f.actions.down?.n).toBe(3);
    expect(f.actions.right?.n).toBe(2);
    expect(f.actions.down?.q).toBeCloseTo(-0.5, 6);
  });

  it("bootstraps TD targets r + γ·V(successor) from the successor's entry", async () => {
    const writer = createStatisticalWriter({ gamma: 0.5, unknownValue: 0 });
    const table = createKnowledgeTable();
    const b = buffer();
    // X's knowledge first: down reaches the goal (TD target 1), left is cut by the horizon (0 + 0.5·V(S)=0).
    const x = await writer.bootstrap({
      key: X,
      epoch: 1,
      prior: undefined,
      continuations: b.continuations(X, { n: 10, h: 1 }),
      successor: (k) => table.read(k),
    });
    const fx = stateFields(x?.fields);
    expect(fx.actions.down).toMatchObject({ tdN: 2, tdMean: 1, q: 1, mcN: 0 });
    expect(fx.actions.left?.q).toBe(0);
    expect(fx.value).toBe(1);
    await table.write({ key: X, epoch: 1, expectedVersion: 0, ...(x as NonNullable<typeof x>) });
    const s = await writer.bootstrap({
      key: S,
      epoch: 1,
      prior: undefined,
      continuations: b.continuations(S, { n: 10, h: 1 }),
      successor: (k) => table.read(k),
    });
    const fs = stateFields(s?.fields);
    // right → X twice: 0 + 0.5·1 = 0.5. down: hole -1, hole -1, X 0.5 → mean -0.5.
    expect(fs.actions.right).toMatchObject({ tdN: 2, tdMean: 0.5, q: 0.5 });
    expect(fs.actions.down?.tdMean).toBeCloseTo(-0.5, 6);
    expect(fs.bestAction).toBe("right");
    expect(s?.provenance.continuationIds).toContain("td:e4#0+1");
  });

  it("combines MC and TD estimates weighted by their counts", async () => {
    const writer = createStatisticalWriter({ gamma: 0.5 });
    const table = createKnowledgeTable();
    const b = buffer();
    const mc = await writer.understand({
      key: S,
      epoch: 1,
      prior: undefined,
      continuations: b.continuations(S, { n: 10, h: 15 }),
    });
    await table.write({ key: S, epoch: 1, expectedVersion: 0, ...(mc as NonNullable<typeof mc>) });
    const td = await writer.bootstrap({
      key: S,
      epoch: 1,
      prior: table.read(S),
      continuations: b.continuations(S, { n: 10, h: 1 }),
      successor: () => undefined,
    });
    const f = stateFields(td?.fields);
    // right: MC mean 0.25 (2), TD with unknown successors 0 (2) → 0.125.
    expect(f.actions.right).toMatchObject({ mcN: 2, tdN: 2 });
    expect(f.actions.right?.q).toBeCloseTo(0.125, 6);
  });

  it("reflects whole trajectories into path-keyed entries (the baseline)", async () => {
    const writer = createStatisticalWriter();
    const table = createKnowledgeTable();
    const b = buffer();
    for (const id of ["e1", "e2", "e3"]) {
      const transitions = b.transitionsOf(id);
      const success = transitions.at(-1)?.reward === 1;
      const drafts = await writer.reflectTrajectory({
        epoch: 0,
        episode: { id, taskId: "m", transitions, success, return: success ? 1 : 0 },
        pathKey: (t) => `path:m:step=${t}`,
        prior: (k) => table.read(k),
      });
      for (const d of drafts)
        await table.write({ key: d.key, epoch: 0, expectedVersion: d.expectedVersion, ...d.draft });
    }
    const step0: PathKnowledgeFields = PathKnowledgeFieldsSchema.parse(table.read("path:m:step=0")?.fields);
    expect(step0.actions.down).toMatchObject({ n: 3, successes: 1, failures: 2 });
    expect(step0.actions.down?.q).toBeCloseTo(1 / 3, 6);
    expect(table.read("path:m:step=0")?.text).toBe(
      "At step 0: action down failed in 2/3 (67%) episodes and succeeded in 1/3 (33%).",
    );
    expect(table.read("path:m:step=1")?.version).toBe(1);
    expect(table.read("path:m:step=0")?.provenance.episodeIds).toEqual(["e1", "e2", "e3"]);
  });
});
