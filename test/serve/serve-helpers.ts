import type { Environment } from "../../src/core/index.ts";
import { createSystemRuntime } from "../../src/core/system-runtime.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { type ServeOptions, type ServeServer, startServeServer } from "../../src/serve/index.ts";
import { connectServeSocket } from "../../src/serve/ws-client.ts";

/** Starts a FrozenLake server in-process on a free loopback port. */
export async function startFrozenLakeServer(options: Partial<ServeOptions> = {}): Promise<ServeServer> {
  const probe = createFrozenLakeEnvironment({ slippery: false });
  return startServeServer({
    createEnvironment: async () => createFrozenLakeEnvironment({ slippery: false }) as Environment,
    suite: probe.suite,
    family: probe.family,
    runtime: createSystemRuntime({ seed: "serve-test" }),
    port: 0,
    ...options,
  });
}

/** A WebSocket client of the server (frames queued, so that none is missed between awaits). */
export const connectWs = connectServeSocket;

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
