import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WireRequestSchema } from "./messages.ts";
import type { FixtureFile, ReplayStep } from "./replay-fixtures.ts";
import { fixtureKey, loadFixtureFile, parseFixtureFile } from "./replay-fixtures.ts";

/** A request the replay server received. */
export interface ReceivedRequest {
  path: string;
  key: string | null;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** What the server answered. */
  status: number;
}

export interface ReplayServer {
  /** The API root to give a client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  /** Every request received, in arrival order. */
  readonly requests: ReadonlyArray<ReceivedRequest>;
  /** How many times a key was requested. */
  hits(key: string): number;
  close(): Promise<void>;
}

export interface ReplayServerOptions {
  /** Fixtures in memory, or... */
  fixtures?: FixtureFile | unknown;
  /** ...a fixture file to load (validated). */
  fixturePath?: string;
}

/**
 * A local OpenAI-compatible endpoint (127.0.0.1, a free port) that answers POST /v1/chat/completions
 * from recorded fixtures. An unknown request gets HTTP 404 with a JSON error naming its key, so tests
 * fail loudly instead of reaching the network.
 */
export async function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  const file = options.fixturePath
    ? loadFixtureFile(options.fixturePath)
    : parseFixtureFile(options.fixtures ?? { version: 1, entries: [] });
  const scripts = new Map(file.entries.map((e) => [e.key, e.responses] as const));
  const hitCounts = new Map<string, number>();
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
  const errorBody = (message: string, type: string, extra: Record<string, unknown> = {}) => ({
    error: { message, type, code: type, ...extra },
  });

  const respond = (res: ServerResponse, step: ReplayStep, key: string, hit: number) => {
    if ("texts" in step) {
      const usage = step.usage ?? { promptTokens: 0, completionTokens: 0 };
      send(res, 200, {
        id: `chatcmpl-replay-${key.slice(0, 12)}-${hit}`,
        object: "chat.completion",
        created: 0,
        model: "replay",
        choices: step.texts.map((text, index) => ({
          index,
          message: { role: "assistant", content: text },
          finish_reason: "stop",
        })),
        usage: {
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          total_tokens: usage.promptTokens + usage.completionTokens,
        },
      });
    } else {
      const headers: Record<string, string> =
        step.retryAfterS === undefined ? {} : { "retry-after": String(step.retryAfterS) };
      send(res, step.status, errorBody(step.error, "scripted_failure"), headers);
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const record = (key: string | null, body: unknown, status: number) =>
      requests.push({ path, key, body, headers: { ...req.headers }, status });
    if (req.method !== "POST" || !/\/chat\/completions$/.test(path)) {
      record(null, text, 404);
      send(res, 404, errorBody(`replay server: no route ${req.method} ${path}`, "not_found"));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      record(null, text, 400);
      send(res, 400, errorBody("replay server: request body is not JSON", "invalid_request_error"));
      return;
    }
    const parsed = WireRequestSchema.safeParse(body);
    if (!parsed.success) {
      record(null, body, 400);
      send(res, 400, errorBody("replay server: not a chat completion request", "invalid_request_error"));
      return;
    }
    const key = fixtureKey(parsed.data);
    const script = scripts.get(key);
    if (!script) {
      record(key, body, 404);
      send(
        res,
        404,
        errorBody(
          `replay server: no recorded response for request key ${key} (model ${parsed.data.model}, n ${parsed.data.n ?? 1}); record it with recordFixture`,
          "fixture_not_found",
          { key },
        ),
      );
      return;
    }
    const hit = hitCounts.get(key) ?? 0;
    hitCounts.set(key, hit + 1);
    const step = script[Math.min(hit, script.length - 1)] as ReplayStep;
    record(key, body, "texts" in step ? 200 : step.status);
    if (step.delayMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        respond(res, step, key, hit);
      }, step.delayMs);
      timers.add(timer);
    } else respond(res, step, key, hit);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    hits: (key) => hitCounts.get(key) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
