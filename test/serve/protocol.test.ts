import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Environment } from "../../src/core/index.ts";
import { createSystemRuntime } from "../../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createStoreRecorder, SERVE_ERROR_CODES as E, type ServeServer } from "../../src/serve/index.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { connectWs, postJson, startFrozenLakeServer } from "./serve-helpers.ts";

const PATH = ["down", "down", "right", "right", "down", "right"];
const move = (direction: string) => ({ type: "move", direction });

describe("the wire protocol", () => {
  const store = createMemoryStore();
  let server: ServeServer;
  beforeAll(async () => {
    const runtime = createSystemRuntime({ seed: "proto" });
    const suite = createFrozenLakeEnvironment({}).suite;
    server = await startFrozenLakeServer({
      runtime,
      recorder: createStoreRecorder({ store, runtime, tasks: suite.list(), config: {}, codeVersion: "t" }),
    });
  });
  afterAll(() => server.close());

  it("publishes metadata and JSON schemas generated from the contracts", async () => {
    const meta = (await (await fetch(`${server.url}/metadata`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({ family: "frozenlake", run_id: server.runId });
    expect((meta.tasks as Array<{ id: string }>).map((t) => t.id)).toContain("4x4");
    const schema = (await (await fetch(`${server.url}/schema`)).json()) as Record<
      string,
      { anyOf?: unknown[] }
    >;
    expect(Object.keys(schema).sort()).toEqual(["action", "observation", "reset", "state", "ws_message"]);
    expect(JSON.stringify(schema.action)).toContain('"move"');
    expect(JSON.stringify(schema.observation)).toContain('"metadata"');
  });

  it("plays a full HTTP episode: OpenEnv's fields, then the verifier's outcome", async () => {
    const first = await postJson(`${server.url}/reset`, { seed: 2, task_id: "4x4" });
    expect(first.body).toMatchObject({
      reward: null,
      done: false,
      observation: { done: false, reward: null },
    });
    const session_id = (first.body.metadata as { session_id: string }).session_id;
    let last = first;
    for (const d of PATH) last = await postJson(`${server.url}/step`, { session_id, action: move(d) });
    expect(last.body).toMatchObject({
      reward: 1,
      done: true,
      observation: { done: true, reward: 1 },
      metadata: { step_count: 6, terminated: true, outcome: { success: true } },
    });
    const state = (await (await fetch(`${server.url}/state?session_id=${session_id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(state).toMatchObject({ session_id, step_count: 6, done: true, task_id: "4x4", seed: 2 });
    // Stepping the ended episode is the environment's data, not an error, and is not recorded.
    const after = await postJson(`${server.url}/step`, { session_id, action: move("up") });
    expect((after.body.observation as { error?: { code: string } }).error?.code).toBe("episode_ended");
    expect((await postJson(`${server.url}/close`, { session_id })).body).toMatchObject({ closed: true });
  });

  it("answers pipelined frames once each, in order", async () => {
    const c = await connectWs(server.url);
    c.socket.send(JSON.stringify({ type: "reset", data: { seed: 9 } }));
    for (const d of PATH) c.socket.send(JSON.stringify({ type: "step", data: move(d) }));
    c.socket.send(JSON.stringify({ type: "state" }));
    const frames = [];
    for (let i = 0; i < PATH.length + 2; i++) frames.push(await c.next());
    expect(frames.map((f) => f.type)).toEqual(["observation", ...PATH.map(() => "observation"), "state"]);
    expect(frames.slice(1, -1).map((f) => (f.data.metadata as { step_count: number }).step_count)).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    // A reset mid-episode ends the open episode aborted; a new one starts.
    await c.request({ type: "reset", data: { seed: 9, episode_id: "mid" } });
    await c.request({ type: "step", data: move("right") });
    await c.request({ type: "reset", data: { seed: 9, episode_id: "next" } });
    const mid = store
      .listTrajectories(server.runId!)
      .find((t) => (t.meta.serve as { episodeId: string }).episodeId === "mid");
    expect([mid?.status, mid?.stepCount]).toEqual(["aborted", 1]);
    c.socket.close();
  });

  it("says snapshot_unsupported for an environment that declares no snapshots", async () => {
    const s = await startFrozenLakeServer({
      createEnvironment: async () => {
        const env = createFrozenLakeEnvironment({});
        return Object.assign(Object.create(env), {
          capabilities: { ...env.capabilities, snapshot: false },
        }) as Environment;
      },
    });
    try {
      const c = await connectWs(s.url);
      await c.request({ type: "reset" });
      const frame = await c.request({ type: "snapshot" });
      expect([frame.type, frame.data.code]).toEqual(["error", E.snapshotUnsupported]);
      expect((await c.request({ type: "fingerprint" })).type).toBe("fingerprint");
      c.socket.close();
    } finally {
      await s.close();
    }
  });

  it("on stop, records open episodes aborted and completes the run", async () => {
    const runtime = createSystemRuntime({ seed: "stop" });
    const own = createMemoryStore();
    const suite = createFrozenLakeEnvironment({}).suite;
    const s = await startFrozenLakeServer({
      runtime,
      recorder: createStoreRecorder({
        store: own,
        runtime,
        tasks: suite.list(),
        config: {},
        codeVersion: "t",
      }),
    });
    const c = await connectWs(s.url);
    await c.request({ type: "reset", data: { episode_id: "open" } });
    await c.request({ type: "step", data: move("down") });
    await s.close();
    const run = own.getRun(s.runId!)!;
    expect(run).toMatchObject({
      kind: "serve",
      status: "complete",
      summary: { episodes: 1, steps: 1, aborted: 1 },
    });
    expect(own.listTrajectories(s.runId!).map((t) => t.status)).toEqual(["aborted"]);
  });
});
