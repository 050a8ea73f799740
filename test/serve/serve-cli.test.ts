import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compiledBin } from "../cli/compiled-bin.ts";
import { runMain } from "../cli/run-cli.ts";
import { connectWs } from "./serve-helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "serve-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATH = ["down", "down", "right", "right", "down", "right"];

describe("rehearsal serve", () => {
  it("records served episodes in a run of kind serve that 'rehearsal export' exports", async () => {
    const store = join(dir, "store");
    const config = join(dir, "serve.json");
    writeFileSync(config, JSON.stringify({ env: "frozenlake", envOptions: { slippery: false } }));
    const child = spawn(
      process.execPath,
      [await compiledBin(), "serve", "-c", config, "--port", "0", "--store", store],
      {
        env: { ...process.env, CI: "1" },
      },
    );
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (c) => {
        out += c;
        if (out.includes("\n")) resolve(out);
      });
      child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    const runId = /recording run (\S+?);/.exec(line)?.[1];
    expect(url, line).toBeDefined();
    const c = await connectWs(url!);
    await c.request({ type: "reset", data: { seed: 3, episode_id: "cli-episode" } });
    let last: { data: Record<string, unknown> } | undefined;
    for (const d of PATH) last = await c.request({ type: "step", data: { type: "move", direction: d } });
    expect(last!.data).toMatchObject({ done: true, reward: 1, metadata: { outcome: { success: true } } });
    // A second episode left open is recorded aborted when the server stops.
    await c.request({ type: "reset", data: { seed: 4, episode_id: "left-open" } });
    await c.request({ type: "step", data: { type: "move", direction: "right" } });
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(err).toContain(`run ${runId} recorded`);

    const out = join(dir, "served.jsonl");
    const r = await runMain(["export", "trajectories", "--run", runId!, "--store", store, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((t) => [t.status, t.steps.length, t.meta.serve.episodeId])).toEqual([
      ["complete", 6, "cli-episode"],
      ["aborted", 1, "left-open"],
    ]);
    expect(rows[0].steps.map((s: { action: { direction: string } }) => s.action.direction)).toEqual(PATH);
    expect(rows[0].outcome.success).toBe(true);
    const runs = await runMain(["--json", "runs", "show", runId!, "--store", store]);
    expect(runs.stdout).toContain('"serve"');
  });

  it("refuses to bind beyond loopback without a token (exit 2)", async () => {
    const r = await runMain(["--json", "serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe("serve.token_required");
  });
});
