import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError } from "../../src/core/errors.ts";
import type { Environment } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { SERVE_ERROR_CODES as E, type ServeServer } from "../../src/serve/index.ts";
import { connectWs, postJson, startFrozenLakeServer } from "./serve-helpers.ts";

const MAX = 4096;
let server: ServeServer;

/** The server still answers: health is fine and a fresh session plays a step. */
async function expectHealthy(s: ServeServer = server): Promise<void> {
  const health = await fetch(`${s.url}/health`);
  expect(health.status).toBe(200);
  const c = await connectWs(s.url);
  expect((await c.request({ type: "reset" })).type).toBe("observation");
  const step = await c.request({ type: "step", data: { type: "move", direction: "right" } });
  expect(step.type).toBe("observation");
  c.socket.close();
  await c.closed;
}

function expectError(frame: { type: string; data: Record<string, unknown> }, code: string): void {
  expect(frame.type, JSON.stringify(frame)).toBe("error");
  expect(frame.data.code).toBe(code);
  expect(typeof frame.data.message).toBe("string");
  expect(frame.data.category).toBe("user");
}

beforeAll(async () => {
  server = await startFrozenLakeServer({ maxMessageBytes: MAX, maxSessions: 8 });
});
afterAll(() => server.close());

describe("hostile WebSocket frames get a typed error and the connection stays usable", () => {
  const cases: Array<[string, unknown, string, boolean?]> = [
    ["invalid JSON", "{not json", E.invalidJson],
    ["a JSON array", "[1,2,3]", E.invalidMessage],
    ["JSON null", "null", E.invalidMessage],
    ["no type", { data: {} }, E.invalidMessage],
    ["a type that is not a string", { type: 5 }, E.invalidMessage],
    ["an unknown type", { type: "rm -rf" }, E.unknownType],
    ["an unknown field", { type: "state", evil: true }, E.invalidMessage],
    ["a step before reset", { type: "step", data: { type: "move", direction: "up" } }, E.notReset],
    ["a snapshot before reset", { type: "snapshot" }, E.notReset],
    ["reset with a negative seed", { type: "reset", data: { seed: -1 } }, E.invalidMessage],
    ["reset with an unknown task", { type: "reset", data: { task_id: "../../etc/passwd" } }, E.unknownTask],
    ["reset with a prototype key", '{"type":"reset","data":{"__proto__":{"polluted":1}}}', E.invalidMessage],
    [
      "a deeply nested message",
      `{"type":"reset","data":${"[".repeat(1500)}${"]".repeat(1500)}}`,
      E.invalidMessage,
    ],
    ["an action of an unknown kind", { type: "step", data: { type: "teleport" } }, E.invalidAction, true],
    ["an invalid move", { type: "step", data: { type: "move", direction: "north" } }, E.invalidAction, true],
    ["an action that is a string", { type: "step", data: "move left" }, E.invalidAction, true],
    ["restore with garbage", { type: "restore", data: { snapshot: 42 } }, E.invalidMessage, true],
    [
      "restore with another task's snapshot",
      {
        type: "restore",
        data: { snapshot: { family: "chess", taskId: "x", seed: 0, state: {}, step_count: 0 } },
      },
      E.invalidMessage,
      true,
    ],
    ["a session id that is not yours", { type: "state", session_id: "someone-else" }, E.notYourSession, true],
    [
      "an oversized message",
      { type: "reset", data: { episode_id: "x".repeat(MAX * 2) } },
      E.messageTooLarge,
      true,
    ],
  ];
  for (const [name, message, code, afterReset] of cases) {
    it(name, async () => {
      const c = await connectWs(server.url);
      if (afterReset) expect((await c.request({ type: "reset" })).type).toBe("observation");
      expectError(await c.request(message), code);
      // The same connection still works after the error.
      expect((await c.request({ type: "state" })).type).toBe("state");
      c.socket.close();
      await c.closed;
      await expectHealthy();
    });
  }

  it("a binary frame", async () => {
    const c = await connectWs(server.url);
    c.socket.send(Buffer.from([0xff, 0x00, 0x01]), { binary: true });
    expectError(await c.next(), E.invalidMessage);
    expect((await c.request({ type: "state" })).type).toBe("state");
    c.socket.close();
    await expectHealthy();
  });

  it("a message over the hard frame limit closes that connection only (1009)", async () => {
    const c = await connectWs(server.url);
    c.socket.send("x".repeat(MAX * 8));
    expect((await c.closed).code).toBe(1009);
    await expectHealthy();
  });

  it("a flood of frames without waiting for answers closes that connection only (1008)", async () => {
    const c = await connectWs(server.url);
    await c.request({ type: "reset" });
    for (let i = 0; i < 2000; i++) c.socket.send('{"type":"state"}');
    expect((await c.closed).code).toBe(1008);
    await expectHealthy();
  });

  it("a step after close: the session is gone", async () => {
    const c = await connectWs(server.url);
    await c.request({ type: "reset" });
    const sessionId = (await c.request({ type: "state" })).data.session_id as string;
    expect((await c.request({ type: "close" })).type).toBe("closed");
    expect((await c.closed).code).toBe(1000);
    const r = await postJson(`${server.url}/step`, {
      session_id: sessionId,
      action: { type: "move", direction: "up" },
    });
    expect(r.status).toBe(404);
    expect((r.body.error as { code: string }).code).toBe(E.unknownSession);
    await expectHealthy();
  });
});

describe("hostile HTTP requests get a typed error body", () => {
  const errorOf = (r: { body: Record<string, unknown> }) => (r.body.error as { code: string }).code;

  it("invalid JSON, wrong content type, unknown route, oversized body", async () => {
    const bad = await postJson(`${server.url}/reset`, "{nope");
    expect([bad.status, errorOf(bad)]).toEqual([400, E.invalidJson]);
    const text = await fetch(`${server.url}/reset`, {
      method: "POST",
      headers: { "content-type": "application/xml" },
      body: "<a/>",
    });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe(E.invalidMessage);
    const missing = await fetch(`${server.url}/../../admin`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe(E.notFound);
    const big = await postJson(`${server.url}/reset`, { episode_id: "x".repeat(MAX * 2) });
    expect([big.status, errorOf(big)]).toEqual([413, E.messageTooLarge]);
    await expectHealthy();
  });

  it("unknown sessions, WebSocket sessions, missing fields", async () => {
    const unknown = await postJson(`${server.url}/step`, {
      session_id: "nope",
      action: { type: "move", direction: "up" },
    });
    expect([unknown.status, errorOf(unknown)]).toEqual([404, E.unknownSession]);
    const c = await connectWs(server.url);
    await c.request({ type: "reset" });
    const wsSession = (await c.request({ type: "state" })).data.session_id as string;
    const stolen = await postJson(`${server.url}/step`, {
      session_id: wsSession,
      action: { type: "move", direction: "up" },
    });
    expect([stolen.status, errorOf(stolen)]).toEqual([403, E.notYourSession]);
    c.socket.close();
    const noAction = await postJson(`${server.url}/step`, { session_id: "x", actions: [] });
    expect([noAction.status, errorOf(noAction)]).toEqual([422, E.invalidMessage]);
    await expectHealthy();
  });

  it("a slow-loris client is dropped and others are served meanwhile", async () => {
    const s = await startFrozenLakeServer({ requestTimeoutMs: 400 });
    try {
      const socket = connect(s.port, "127.0.0.1");
      socket.on("error", () => undefined);
      const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.write("POST /reset HTTP/1.1\r\nHost: x\r\n");
      const drip = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 100);
      await expectHealthy(s);
      await ended;
      clearInterval(drip);
      await expectHealthy(s);
    } finally {
      await s.close();
    }
  });
});

describe("capacity, auth and infrastructure failures", () => {
  it("a full server answers capacity_reached (WebSocket 1013, HTTP 503) and frees the slot on close", async () => {
    const s = await startFrozenLakeServer({ maxSessions: 1 });
    try {
      const a = await connectWs(s.url);
      const b = await connectWs(s.url);
      expectError(await b.next(), E.capacityReached);
      expect((await b.closed).code).toBe(1013);
      const http = await postJson(`${s.url}/reset`, {});
      expect([http.status, (http.body.error as { code: string }).code]).toEqual([503, E.capacityReached]);
      a.socket.close();
      await a.closed;
      await expect.poll(() => s.sessions.size).toBe(0);
      await expectHealthy(s);
    } finally {
      await s.close();
    }
  });

  it("a port already in use is a user error naming the fix", async () => {
    await expect(startFrozenLakeServer({ port: server.port })).rejects.toMatchObject({
      code: "serve.listen_failed",
      category: "user",
    });
    await expectHealthy();
  });

  it("a token is required off loopback, and checked", async () => {
    await expect(startFrozenLakeServer({ host: "0.0.0.0" })).rejects.toMatchObject({
      code: "serve.token_required",
    });
    const s = await startFrozenLakeServer({ token: "s3cret" });
    try {
      const none = await postJson(`${s.url}/reset`, {});
      expect([none.status, (none.body.error as { code: string }).code]).toEqual([401, E.unauthorized]);
      const wrong = await postJson(`${s.url}/reset`, {}, { authorization: "Bearer s3cre" });
      expect(wrong.status).toBe(401);
      await expect(connectWs(s.url)).rejects.toThrow(/401/);
      const ok = await connectWs(s.url, { authorization: "Bearer s3cret" });
      expect((await ok.request({ type: "reset" })).type).toBe("observation");
      ok.socket.close();
      expect((await postJson(`${s.url}/reset`, {}, { authorization: "Bearer s3cret" })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it("an environment failure is an environment error frame, never a reward", async () => {
    let failing = true;
    const s = await startFrozenLakeServer({
      createEnvironment: async () => {
        const env = createFrozenLakeEnvironment({ slippery: false });
        const step = env.step.bind(env);
        return Object.assign(env, {
          step: async (a: Parameters<Environment["step"]>[0]) => {
            if (failing) throw new EnvironmentError("env.crashed", "the engine died");
            return step(a);
          },
        }) as Environment;
      },
    });
    try {
      const c = await connectWs(s.url);
      await c.request({ type: "reset" });
      const frame = await c.request({ type: "step", data: { type: "move", direction: "right" } });
      expect(frame).toMatchObject({
        type: "error",
        data: { code: "env.crashed", category: "environment", infra: true },
      });
      expect(frame.data).not.toHaveProperty("reward");
      // The environment was discarded: the session must reset, and then plays on a fresh one.
      expectError(await c.request({ type: "step", data: { type: "move", direction: "right" } }), E.notReset);
      failing = false;
      await c.request({ type: "reset" });
      expect((await c.request({ type: "step", data: { type: "move", direction: "right" } })).type).toBe(
        "observation",
      );
      c.socket.close();
    } finally {
      await s.close();
    }
  });
});
