import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Action, type Observation, sha256Hex } from "../../../src/core/index.ts";
import { describeEnvironmentConformance } from "../../../src/testing/index.ts";
import {
  createWorldModelEnvironment,
  readWorldbook,
  WORLDBOOK_INVALID,
  type Worldbook,
  worldbookHash,
  writeWorldbook,
} from "../../../src/worldmodel/index.ts";
import type { SimulationTrace } from "../../../src/worldmodel/runtime/index.ts";
import { frozenLakeWorldbook } from "./fixtures.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "wm-env-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const MOVES = ["right", "down", "left", "down", "right", "up"] as const;
const move = (direction: string): Action => ({ type: "move", direction }) as Action;

let slipperyDir = "";
let slippery: Worldbook;
beforeAll(async () => {
  slippery = (await frozenLakeWorldbook({ slippery: true })).book;
  slipperyDir = tempDir();
  writeWorldbook(slipperyDir, slippery);
}, 120_000);

describe("world-model environment on a slippery FrozenLake worldbook", () => {
  describeEnvironmentConformance({
    name: "worldmodel (frozenlake, slippery)",
    create: () => createWorldModelEnvironment({ dir: slipperyDir }),
    taskIds: ["4x4", "8x8"],
    seeds: [3, 1234],
    chooseAction: (_o: Observation, i: number) => move(MOVES[i % MOVES.length] as string),
    invalidActions: [move("diagonal"), { type: "nope" } as unknown as Action],
    steps: 6,
  });

  it("resets to the recorded start of that seed, exactly as recorded", async () => {
    const env = await createWorldModelEnvironment({ dir: slipperyDir });
    const start = slippery.starts.find((s) => s.taskId === "8x8" && s.seed === 5);
    expect(start).toBeDefined();
    expect(await env.reset({ taskId: "8x8", seed: 5 })).toEqual(start?.observation);
    expect(env.family).toBe("frozenlake");
    expect(env.suite.get("8x8").tags).toContain("worldmodel");
    await env.close();
  });

  it("an unknown task is a UserError naming the known ids", async () => {
    const env = await createWorldModelEnvironment({ book: slippery });
    const err = (await env.reset({ taskId: "9x9", seed: 0 }).catch((e: unknown) => e)) as Error & {
      category: string;
    };
    expect(err.category).toBe("user");
    expect(err.message).toContain("4x4, 8x8");
    await env.close();
  });

  it("draws slips from its seeded stream: the next cells follow the worldbook's slip distribution", async () => {
    const env = await createWorldModelEnvironment({ book: slippery });
    const counts = new Map<string, number>();
    const n = 300;
    for (let seed = 0; seed < n; seed++) {
      await env.reset({ taskId: "8x8", seed: 10_000 + seed });
      const r = await env.step(move("down"));
      const trace = r.info.worldmodel as SimulationTrace;
      expect(trace.fired.length).toBeGreaterThan(0);
      const at = `${(r.observation.data as { row: number }).row},${(r.observation.data as { col: number }).col}`;
      counts.set(at, (counts.get(at) ?? 0) + 1);
    }
    // From (0,0) "down" lands at (1,0), slips to (0,1), or slips into the wall and stays: 1/3 each.
    for (const cell of ["1,0", "0,1", "0,0"])
      expect(Math.abs((counts.get(cell) ?? 0) / n - 1 / 3)).toBeLessThan(0.1);
    await env.close();
  });

  it("truncates at maxSteps, then answers episode_ended", async () => {
    const env = await createWorldModelEnvironment({ book: slippery });
    await env.reset({ taskId: "8x8", seed: 0, maxSteps: 2 });
    const first = await env.step(move("up"));
    expect(first.truncated).toBe(false);
    const second = await env.step(move("left"));
    expect(second.truncated).toBe(true);
    const after = await env.step(move("left"));
    expect(after.observation.error?.code).toBe("episode_ended");
    expect((await env.evaluate()).reason).toContain("simulated");
    await env.close();
  });

  it("an action the worldbook knows nothing of is an explicit unknown that changes no state", async () => {
    const env = await createWorldModelEnvironment({ book: slippery });
    const before = await env.reset({ taskId: "4x4", seed: 0 });
    const print = await env.fingerprint();
    const r = await env.step({ type: "key", keys: "Enter" });
    expect(r.observation.error?.code).toBe("worldmodel_unknown");
    expect((r.info.worldmodel as SimulationTrace).unknown).toBe(true);
    const { error: _e, ...shown } = r.observation;
    expect(shown).toEqual(before);
    expect(r.reward).toBe(0);
    expect(r.terminated).toBe(false);
    // Only the step count moved.
    expect(await env.fingerprint()).not.toBe(print);
    await env.close();
  });

  it("names its worldbook by the sha256 of manifest.json; a different expected hash is refused", async () => {
    const env = await createWorldModelEnvironment({ dir: slipperyDir });
    const manifest = readFileSync(join(slipperyDir, "manifest.json"), "utf8");
    expect(env.worldbook.hash).toBe(sha256Hex(manifest));
    expect(worldbookHash(readWorldbook(slipperyDir))).toBe(env.worldbook.hash);
    await env.close();
    const err = await createWorldModelEnvironment({ dir: slipperyDir, expectedHash: "0".repeat(64) }).catch(
      (e: unknown) => e,
    );
    expect((err as { code: string }).code).toBe("worldbook.changed");
  });

  it("refuses a missing directory (worldbook.invalid) and a book of several families", async () => {
    const missing = await createWorldModelEnvironment({ dir: join(tempDir(), "nope") }).catch(
      (e: unknown) => e,
    );
    expect((missing as { code: string }).code).toBe(WORLDBOOK_INVALID);
    const mixed: Worldbook = {
      ...slippery,
      manifest: { ...slippery.manifest, families: ["chess", "frozenlake"] },
    };
    const err = await createWorldModelEnvironment({ book: mixed }).catch((e: unknown) => e);
    expect((err as { code: string; category: string }).code).toBe("worldbook.families");
    expect((err as { category: string }).category).toBe("user");
  });

  it("refuses invalid simulator options as a UserError", async () => {
    const err = await createWorldModelEnvironment({
      book: slippery,
      options: { system: "magic" } as unknown as { system: "full" },
    }).catch((e: unknown) => e);
    expect((err as { category: string }).category).toBe("user");
  });
});

describe("world-model environment on a deterministic FrozenLake worldbook", () => {
  it("plays to the goal and evaluates the simulated reward as a success", async () => {
    const { book } = await frozenLakeWorldbook({ slippery: false }, { taskIds: ["4x4"], episodes: 400 });
    const env = await createWorldModelEnvironment({ book });
    await env.reset({ taskId: "4x4", seed: 0 });
    let last = { reward: 0, terminated: false };
    for (const d of ["down", "down", "right", "right", "down", "right"]) last = await env.step(move(d));
    expect(last).toMatchObject({ reward: 1, terminated: true });
    const verdict = await env.evaluate();
    expect(verdict.success).toBe(true);
    expect(verdict.reason).toContain("simulated");
    await env.close();
  }, 120_000);
});
