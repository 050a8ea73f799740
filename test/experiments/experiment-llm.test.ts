import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { runFrozenLakeSklExperiment } from "../../src/experiments/index.ts";
import { chatCompletionBody } from "../llm/helpers.ts";

/** A local OpenAI-compatible endpoint whose model always proposes the same knowledge update. */
async function withModel<T>(
  answer: string,
  fn: (baseUrl: string, requests: string[]) => Promise<T>,
): Promise<T> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += String(chunk);
    });
    req.on("end", () => {
      requests.push(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(chatCompletionBody(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    return await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe("SKL FrozenLake experiment with the llm writer", () => {
  it("writes the model's knowledge for visited states and keeps the API key out of the report", async () => {
    const answer = JSON.stringify({
      skip: false,
      knowledge: "Moving down from here is safe.",
      values: { down: 0.6, right: 0.1, left: -0.5, up: -0.5 },
    });
    await withModel(answer, async (baseUrl, requests) => {
      const { report } = await runFrozenLakeSklExperiment({
        trainMaps: 3,
        testMaps: 2,
        iterations: 2,
        methods: ["stateful-root", "stateful-bootstrap"],
        writer: "llm",
        llm: { baseUrl, model: "m", apiKey: "secret-key" },
      });
      expect(requests.length).toBeGreaterThan(0);
      expect(report.setup.writer).toMatch(/llm/);
      expect(JSON.stringify(report)).not.toContain("secret-key");
      for (const m of report.methods) {
        expect(m.iterations).toHaveLength(2);
        expect(m.knowledge.keys).toBeGreaterThan(0);
      }
    });
  });

  it("needs an llm config", async () => {
    await expect(
      runFrozenLakeSklExperiment({ trainMaps: 1, testMaps: 1, iterations: 1, writer: "llm" }),
    ).rejects.toThrow(/llm/);
  });
});
