import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSystemRuntime } from "../../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { createStoreRecorder, type ServeServer } from "../../src/serve/index.ts";
import { openSqliteStore, type RunStore } from "../../src/store/index.ts";
import { PYTHON, pythonScenario, spawnPythonScenario, startFrozenLakeServer } from "./serve-helpers.ts";

const probe = spawnSync(PYTHON, ["-c", "import requests, websockets"], { encoding: "utf8" });
const havePython = probe.status === 0;
// Skipped only when Debian's packages are absent AND the setup was told to skip them.
const skip = !havePython && process.env.REHEARSAL_SKIP_PYTHON === "1";
if (!havePython && !skip)
  throw new Error(
    `${PYTHON} cannot import requests and websockets (${probe.stderr?.trim()}); run 'node scripts/setup.mjs' (installs python3-requests and python3-websockets) or set REHEARSAL_SKIP_PYTHON=1`,
  );
if (skip)
  console.warn(
    "python client tests skipped: REHEARSAL_SKIP_PYTHON=1 and Debian's python3-requests/python3-websockets are absent",
  );

describe.skipIf(skip)("the Python client against a FrozenLake server", () => {
  let dir: string;
  let store: RunStore;
  let server: ServeServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-py-"));
    store = openSqliteStore({ dir });
    const runtime = createSystemRuntime({ seed: "py" });
    const suite = createFrozenLakeEnvironment({ slippery: false }).suite;
    server = await startFrozenLakeServer({
      runtime,
      idleTimeoutMs: 1500,
      recorder: createStoreRecorder({ store, runtime, tasks: suite.list(), config: {}, codeVersion: "test" }),
    });
  });
  afterAll(async () => {
    await server.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("plays full episodes over HTTP and WebSocket, with the verifier's outcome", async () => {
    const r = await pythonScenario("frozenlake", server.url);
    const trajectories = store
      .listTrajectories(server.runId!)
      .filter((t) =>
        [r.http_session, r.ws_session].includes((t.meta.serve as { sessionId: string }).sessionId),
      );
    expect(trajectories.map((t) => [t.status, t.stepCount])).toEqual([
      ["complete", 6],
      ["complete", 6],
    ]);
    expect(store.getTrajectory(trajectories[0]!.id)!.outcome?.success).toBe(true);
  });

  it("runs a GRPO-style group of 8 concurrent sessions, every step recorded once", async () => {
    const r = (await pythonScenario("group", server.url)) as {
      members: Array<{ episode: string; steps: number }>;
    };
    expect(r.members).toHaveLength(8);
    for (const m of r.members) {
      const t = store
        .listTrajectories(server.runId!)
        .find((x) => (x.meta.serve as { episodeId: string }).episodeId === m.episode);
      expect(t?.stepCount, m.episode).toBe(m.steps);
      expect(store.getTrajectory(t!.id)!.steps.map((s) => s.index)).toEqual([...Array(m.steps).keys()]);
    }
  });

  it("snapshots and restores over the wire (fingerprints agree)", async () => {
    const r = await pythonScenario("snapshot", server.url);
    expect(typeof r.fingerprint).toBe("string");
  });

  it("reclaims the environment of a client killed mid-episode after the idle timeout", async () => {
    const child: ChildProcess = spawnPythonScenario("hang", server.url);
    const line = await new Promise<string>((resolve) =>
      child.stdout!.once("data", (c) => resolve(String(c))),
    );
    const sessionId = (JSON.parse(line) as { session: string }).session;
    expect(() => server.sessions.get(sessionId)).not.toThrow();
    child.kill("SIGKILL");
    await expect.poll(() => server.sessions.size, { timeout: 20_000, interval: 100 }).toBe(0);
    const t = store
      .listTrajectories(server.runId!)
      .find((x) => (x.meta.serve as { sessionId: string }).sessionId === sessionId);
    expect([t?.status, t?.stepCount]).toEqual(["aborted", 1]);
  });
});
