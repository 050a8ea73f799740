import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type FixtureEntry, startReplayServer } from "../../src/llm/index.ts";
import { countWmCalls, splitWmTranscript, trajectoryWmCalls } from "../../src/rl/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { llmEnv } from "../cli/llm-helpers.ts";
import { lakeRolloutGroups } from "../cli/rl-helpers.ts";
import { runMain } from "../cli/run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-call-wm-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RIGHT = '{"type":"move","direction":"right"}';
/** The recorded model: it asks about moving right once, then commits it. */
function reply(body: { messages: Array<{ role: string; content: unknown }> }): string {
  const last = body.messages.at(-1);
  const answered = last?.role === "user" && String(last.content).startsWith("<wm_answer>");
  return answered ? `Right looks safe.\nAction: ${RIGHT}` : `Let me imagine it.\n<call_wm>${RIGHT}`;
}

describe("rehearsal rl rollouts --policy llm --wm perfect (recorded responses)", () => {
  it("gives the llm policy the world model in its reasoning: one <call_wm> per step, counted per trajectory", async () => {
    // Each request is answered from the recording, built round by round: a run stops (exit 4) at the
    // first request without one, which is then recorded from what the model above says to it.
    const entries = new Map<string, FixtureEntry>();
    let out: { code: number; stdout: string; stderr: string } | undefined;
    let bodies: Array<{ stop?: string[]; messages: Array<{ role: string; content: unknown }> }> = [];
    const store = join(dir, "store");
    for (let round = 0; round < 10; round++) {
      const server = await startReplayServer({ fixtures: { version: 1, entries: [...entries.values()] } });
      out = await lakeRolloutGroups({
        store,
        tasks: "4x4",
        group: 2,
        policy: "llm",
        extra: ["--t-max", "1", "--wm", "perfect", "--seed", "7"],
        env: llmEnv(server.baseUrl),
      });
      await server.close();
      bodies = server.requests.map((r) => r.body as (typeof bodies)[number]);
      if (out.code === 0) break;
      expect(out.code, out.stderr).toBe(4);
      for (const r of server.requests)
        if (r.status === 404 && r.key)
          entries.set(r.key, { key: r.key, responses: [{ status: 200, texts: [reply(r.body as never)] }] });
    }
    expect(out?.code, out?.stderr).toBe(0);
    const result = JSON.parse(out?.stdout ?? "{}") as {
      runId: string;
      policy: string;
      summary: { metrics: { all: { wmCallsPerTrajectory: number } } };
    };
    expect(result.policy).toBe("call-wm(llm:test-model)");
    // Two members, one step each: a first completion and one continuation each, all with the stop.
    expect(bodies).toHaveLength(4);
    for (const b of bodies) expect(b.stop).toEqual(["</call_wm>"]);
    expect(String(bodies[0]?.messages[0]?.content)).toContain("<call_wm>");
    const s = openSqliteStore({ dir: store });
    const trajectories = s.listTrajectories(result.runId).map((h) => s.getTrajectory(h.id));
    s.close();
    expect(trajectories).toHaveLength(2);
    for (const t of trajectories) {
      expect(t?.policy).toBe("call-wm(llm:test-model)");
      const raw = t?.steps[0]?.raw ?? "";
      expect(t?.steps[0]?.action).toEqual({ type: "move", direction: "right" });
      expect(countWmCalls(raw)).toBe(1);
      expect(trajectoryWmCalls(t ?? { steps: [] })).toBe(1);
      expect(splitWmTranscript(raw).map((seg) => seg.kind)).toEqual(["policy", "wm_answer", "policy"]);
    }
    expect(result.summary.metrics.all.wmCallsPerTrajectory).toBe(1);
    // The exported rows hold the system prompt the model saw: with the <call_wm> instructions.
    const rows = join(dir, "rows.jsonl");
    const exported = await runMain(["rl", "export", "--store", store, "--run", result.runId, "--out", rows]);
    expect(exported.code, exported.stderr).toBe(0);
    const lines = readFileSync(rows, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const row = JSON.parse(line) as { prompt: Array<{ role: string; content: string }> };
      expect(row.prompt[0]?.content).toBe(String(bodies[0]?.messages[0]?.content));
      expect(row.prompt[0]?.content).toContain("At most 5 calls per turn");
    }
  }, 120_000);
});
