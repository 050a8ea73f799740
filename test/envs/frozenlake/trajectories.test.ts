// The fast step path (precomputed tables, cached observations) must not change what an episode is.
// Two checks: (1) every step result equals the one an independent, straightforward implementation of
// Gymnasium's dynamics gives (written here from the definition: intended / left turn / right turn,
// walls keep the position, one weighted draw of the episode's stream per slippery move), and (2) whole
// runs (steps, invalid actions, ended episodes, snapshot/restore) hash to the digests recorded from
// the implementation before the speed work.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type Action, createRandom, type GridDirection } from "../../../src/core/index.ts";
import {
  createFrozenLakeEnvironment,
  FROZENLAKE_FAMILY,
  type FrozenLakeConfigInput,
  mapOfTask,
} from "../../../src/envs/frozenlake/index.ts";

const ORDER: GridDirection[] = ["left", "down", "right", "up"];
const DELTA: Record<GridDirection, [number, number]> = {
  left: [0, -1],
  down: [1, 0],
  right: [0, 1],
  up: [-1, 0],
};
const LETTER: Record<string, string> = { S: "_", F: "_", H: "O", G: "G" };

/** The reference: one episode of FrozenLake from its definition, no tables, no caches. */
class ReferenceEpisode {
  row: number;
  col: number;
  steps = 0;
  done = false;
  truncated = false;
  private readonly random;

  constructor(
    private readonly rows: string[],
    taskId: string,
    seed: number,
    private readonly weights: [number, number, number],
    private readonly horizon: number,
  ) {
    const r = rows.findIndex((line) => line.includes("S"));
    this.row = r;
    this.col = (rows[r] as string).indexOf("S");
    this.random = createRandom(FROZENLAKE_FAMILY, taskId, seed);
  }

  tile(row = this.row, col = this.col): string {
    return (this.rows[row] as string)[col] as string;
  }

  text(): string {
    const grid = this.rows
      .map((line, r) =>
        [...line].map((t, c) => (r === this.row && c === this.col ? "P" : LETTER[t])).join(""),
      )
      .join("\n");
    const tile = this.tile();
    const status =
      tile === "G"
        ? "\nYou reached the goal."
        : tile === "H"
          ? "\nYou fell into a hole."
          : this.truncated
            ? "\nOut of steps."
            : "";
    return `${grid}\nPosition (row, col): (${this.row}, ${this.col})${status}`;
  }

  step(direction: GridDirection): { actual: GridDirection; reward: number; terminated: boolean } {
    this.steps++;
    const a = ORDER.indexOf(direction);
    const options = [direction, ORDER[(a + 1) % 4], ORDER[(a + 3) % 4]] as GridDirection[];
    const k = this.weights[0] >= 1 ? 0 : this.random.weighted(this.weights);
    const actual = options[k] as GridDirection;
    const [dr, dc] = DELTA[actual];
    const n = this.rows.length;
    this.row = Math.min(n - 1, Math.max(0, this.row + dr));
    this.col = Math.min(n - 1, Math.max(0, this.col + dc));
    const tile = this.tile();
    this.done = tile === "H" || tile === "G";
    this.truncated = !this.done && this.steps >= this.horizon;
    return { actual, reward: tile === "G" ? 1 : 0, terminated: this.done };
  }
}

/** A fixed pseudo-random action sequence (independent of the environment's stream). */
function actionSource(seed: number): () => Action {
  let x = (seed * 2654435761 + 1) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    if (x % 23 === 0) return { type: "click", x: 1, y: 2 };
    return { type: "move", direction: ORDER[x & 3] as GridDirection };
  };
}

const CONFIGS: Array<[string, FrozenLakeConfigInput, [number, number, number]]> = [
  ["slippery", {}, [1 / 3, 1 / 3, 1 / 3]],
  ["asymmetric", { perpendicular: { left: 0, right: 2 / 3 } }, [1 - 2 / 3, 0, 2 / 3]],
  ["not slippery", { slippery: false }, [1, 0, 0]],
];
const SUITE = { randomMaps: { count: 3 } };
const TASKS = ["4x4", "8x8", "random-5-1"];

describe("frozenlake fast step path", () => {
  for (const [name, config, weights] of CONFIGS) {
    it(`${name}: every step equals the reference implementation of the dynamics`, async () => {
      const env = createFrozenLakeEnvironment({ ...config, suite: SUITE });
      expect(env.dynamics.intended).toBeCloseTo(weights[0], 12);
      const w: [number, number, number] = [env.dynamics.intended, env.dynamics.left, env.dynamics.right];
      for (const taskId of TASKS) {
        const rows = [...mapOfTask(env.suite.get(taskId)).rows];
        for (let seed = 0; seed < 12; seed++) {
          const horizon = 100;
          const ref = new ReferenceEpisode(rows, taskId, seed, w, horizon);
          expect((await env.reset({ taskId, seed })).text).toBe(ref.text());
          const next = actionSource(seed);
          while (!ref.done && !ref.truncated) {
            const action = next();
            const r = await env.step(action);
            if (action.type !== "move") {
              ref.steps++;
              ref.truncated = ref.steps >= horizon;
              expect(r.observation.error?.code).toBe("invalid_action");
              expect(r.info.invalid).toBe(true);
              continue;
            }
            const from = { row: ref.row, col: ref.col };
            const want = ref.step(action.direction);
            expect(r.info.from).toEqual(from);
            expect(r.info.actual).toBe(want.actual);
            expect(r.info.slipped).toBe(want.actual !== action.direction);
            expect(r.reward).toBe(want.reward);
            expect(r.terminated).toBe(want.terminated);
            expect(r.truncated).toBe(ref.truncated);
            expect(r.observation.text).toBe(ref.text());
            expect(r.observation.data).toEqual({
              row: ref.row,
              col: ref.col,
              size: rows.length,
              mapId: taskId,
            });
            expect(r.observation.error).toBeUndefined();
          }
        }
      }
      await env.close();
    });
  }

  it("whole runs hash to the digests recorded before the fast path", async () => {
    const digests: Record<string, string> = {};
    for (const [name, config] of CONFIGS) {
      const env = createFrozenLakeEnvironment({ ...config, suite: SUITE });
      const hash = createHash("sha256");
      for (const taskId of TASKS) {
        for (let seed = 0; seed < 6; seed++) {
          hash.update(
            JSON.stringify(await env.reset({ taskId, seed, ...(seed === 5 ? { maxSteps: 7 } : {}) })),
          );
          const next = actionSource(100 + seed);
          let snap: unknown;
          for (let i = 0; i < 40; i++) {
            if (i === 3) snap = JSON.parse(JSON.stringify(await env.snapshot()));
            hash.update(JSON.stringify(await env.step(next())));
            hash.update(await env.fingerprint());
          }
          hash.update(JSON.stringify(await env.evaluate()));
          hash.update(JSON.stringify(await env.restore(snap as never)));
          for (let i = 0; i < 5; i++) hash.update(JSON.stringify(await env.step(next())));
          hash.update(JSON.stringify(await env.snapshot()));
          hash.update(JSON.stringify(await env.oracleAction()));
        }
      }
      digests[name] = hash.digest("hex").slice(0, 16);
      await env.close();
    }
    expect(digests).toEqual(RECORDED);
  });
});

/** Recorded with the implementation before the precomputed tables (same seeds, same actions). */
const RECORDED: Record<string, string> = {
  slippery: "cb2a6cac287b2bf4",
  asymmetric: "2d7f62fc12e0cd17",
  "not slippery": "a463687fbeabf5c7",
};
