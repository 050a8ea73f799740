import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
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

/** Debian's python3 (the Python client is tested with the system interpreter and its packages). */
export const PYTHON = "/usr/bin/python3";
const CLIENT_DIR = join(import.meta.dirname, "..", "..", "clients", "python");

/** Starts scenario `name` of the Python client's test script against the server at `url`. */
export function spawnPythonScenario(name: string, url: string): ChildProcess {
  return spawn(PYTHON, ["test_rehearsal_client.py", name, url], {
    cwd: CLIENT_DIR,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
}

/** Runs scenario `name` to its end: the JSON of its last output line; a non-zero exit rejects with its output. */
export function pythonScenario(name: string, url: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawnPythonScenario(name, url);
    let out = "";
    let err = "";
    child.stdout?.on("data", (c) => (out += c));
    child.stderr?.on("data", (c) => (err += c));
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`python scenario ${name} exited ${code}:\n${err}\n${out}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}"));
    });
  });
}
