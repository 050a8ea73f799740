import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createLogger, createManualClock, createRuntime, type LogRecord } from "../../src/core/index.ts";
import { runFrozenLakeSklExperiment } from "../../src/experiments/index.ts";
import { chatCompletionBody } from "../llm/helpers.ts";

const ANSWER = JSON.stringify({ skip: false, knowledge: "Down is safe here.", values: { down: 0.5 } });

describe("SKL with the llm writer runs on the caller's runtime", () => {
  it("waits as long as the injected clock says and logs the retry to the injected logger", async () => {
    const start = Date.UTC(2030, 0, 1, 12, 0, 0);
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        requests += 1;
        if (requests === 1) {
          // Retry-After as an HTTP date one second after the injected clock's time: only a client on that
          // clock waits 1 s (a frozen clock at 0 would wait the capped maximum, 120 s).
          res.writeHead(503, { "retry-after": new Date(start + 1000).toUTCString() });
          res.end("busy");
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(chatCompletionBody(ANSWER));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const records: LogRecord[] = [];
    const runtime = createRuntime({
      seed: "0",
      clock: createManualClock(start),
      logger: createLogger((r) => records.push(r), { minLevel: "debug" }),
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { report } = await runFrozenLakeSklExperiment(
        {
          trainMaps: 1,
          testMaps: 1,
          iterations: 1,
          methods: ["stateful-root"],
          writer: "llm",
          llm: { baseUrl, model: "m", maxRetries: 2 },
        },
        { runtime },
      );
      expect(report.methods[0]?.knowledge.keys).toBeGreaterThan(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const retry = records.find((r) => r.message === "llm request failed; retrying");
    expect(retry?.fields.delayMs).toBe(1000);
    expect(requests).toBeGreaterThan(1);
  }, 60_000);
});
