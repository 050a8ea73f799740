import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startReplayServer } from "../../src/llm/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { llmEnv } from "./llm-helpers.ts";
import { runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-llmcli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI in this process (the replay server runs here too), with the endpoint in its environment. */
const cli = (args: string[], env: Record<string, string>) => runMain(args, { env });

const RUN = [
  "--json",
  "run",
  "--env",
  "frozenlake",
  "--tasks",
  "4x4",
  "--policy",
  "llm",
  "--episodes",
  "1",
  "--max-steps",
  "1",
  "--seed",
  "5",
];

describe("rehearsal run --policy llm against an OpenAI-compatible endpoint (recorded responses)", () => {
  it("records the model's raw text and action, counts unparseable output, and fails typed when the provider does", async () => {
    const env = (url: string) => llmEnv(url);
    // 1. No recorded response: the replay server answers 404, the CLI exits with the provider code 4.
    const empty = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    const store = join(dir, "store");
    const failed = await cli([...RUN, "--store", store], env(empty.baseUrl));
    await empty.close();
    expect(failed.code).toBe(4);
    expect(JSON.parse(failed.stdout).error.category).toBe("provider");
    const failedStore = openSqliteStore({ dir: store });
    const failedRun = failedStore.listRuns()[0]!;
    expect(failedRun.status).toBe("failed");
    expect(failedStore.listTrajectories(failedRun.id)[0]?.status).toBe("aborted");
    failedStore.close();
    const key = empty.requests[0]?.key;
    expect(key).toBeTruthy();
    const body = empty.requests[0]?.body as { model: string; messages: unknown[] };
    expect(body.model).toBe("test-model");

    // 2. The same request, now recorded: a well-formed answer and, for n = 2, a malformed one.
    for (const [text, parseErrors] of [
      ['I will go down.\nAction: {"type": "move", "direction": "down"}', 0],
      ["I think moving down is best", 1],
    ] as const) {
      const server = await startReplayServer({
        fixtures: { version: 1, entries: [{ key, responses: [{ texts: [text] }] }] },
      });
      const ok = await cli([...RUN, "--store", store], env(server.baseUrl));
      await server.close();
      expect(ok.code, ok.stderr).toBe(0);
      const out = JSON.parse(ok.stdout) as {
        runId: string;
        summary: { parseErrors: number; episodes: number };
      };
      expect(out.summary.parseErrors).toBe(parseErrors);
      const s = openSqliteStore({ dir: store });
      const [header] = s.listTrajectories(out.runId);
      const t = s.getTrajectory(header!.id)!;
      s.close();
      expect(t.policy).toBe("llm:test-model");
      expect(t.steps[0]?.raw).toBe(text);
      if (parseErrors === 0) expect(t.steps[0]?.action).toEqual({ type: "move", direction: "down" });
      else expect(t.steps[0]?.parseError?.code).toMatch(/^parse\./);
    }
  }, 60_000);
});
