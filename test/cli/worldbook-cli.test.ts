import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frozenLakeStateViewer } from "../../src/envs/frozenlake/state-view.ts";
import { startReplayServer } from "../../src/llm/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import {
  importTraces,
  readTraceFile,
  readWorldbook,
  type TraceStep,
  writeTraceFile,
} from "../../src/worldmodel/index.ts";
import { recordFrozenLakeRun } from "../worldmodel/traces-helpers.ts";
import { llmEnv } from "./llm-helpers.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-worldbook-cli-"));
const store = join(dir, "store");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const s = openSqliteStore({ dir: store });
  await recordFrozenLakeRun(s, { runId: "run_fl", taskIds: ["4x4", "random-5-0"], episodes: 6 });
  s.close();
}, 120_000);

/** Every file under `root` (relative path → bytes as text). */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = readFileSync(p, "utf8");
    }
  };
  walk(root);
  return out;
}

const build = (out: string, ...extra: string[]) =>
  runMain(["--json", "worldbook", "build", "--runs", "run_fl", "--store", store, "--out", out, ...extra]);

interface BuildJson {
  splits: Record<"build" | "validation" | "test", { episodes: number; transitions: number }>;
  rules: { total: number; supported: number; tentative: number; conflicted: number; stochastic: number };
  files: Record<string, string>;
  heldout: Record<"validation" | "test", { path: string; sha256: string; transitions: number }>;
  families: string[];
}

describe("rehearsal worldbook build | show | diff", () => {
  it("builds from runs: split counts, held-out JSONL beside the worldbook, byte-identical on a rebuild", async () => {
    const a = join(dir, "a");
    const r = await build(a, "--split-seed", "7");
    expect(r.code, r.stderr).toBe(0);
    const out = json<BuildJson>(r);
    expect(out.families).toEqual(["frozenlake"]);
    const total = out.splits.build.episodes + out.splits.validation.episodes + out.splits.test.episodes;
    expect(total).toBe(12);
    expect(out.splits.validation.episodes).toBeGreaterThan(0);
    expect(out.splits.test.episodes).toBeGreaterThan(0);
    expect(out.rules.total).toBe(out.rules.supported + out.rules.tentative + out.rules.conflicted);
    expect(out.rules.stochastic).toBeGreaterThan(0); // slippery
    const wb = readWorldbook(a);
    expect(wb.manifest.split?.seed).toBe("7");
    expect(wb.manifest.episodes).toBe(out.splits.build.episodes);
    expect(Object.keys(out.files).sort()).toEqual(
      Object.keys(tree(a))
        .filter((f) => !f.startsWith("heldout") && f !== "manifest.json")
        .sort(),
    );
    // The held-out traces are the validation and test episodes of the manifest, with states.
    for (const split of ["validation", "test"] as const) {
      const steps = readTraceFile(join(a, "heldout", `${split}.jsonl`));
      expect([...new Set(steps.map((s) => s.episodeId))].sort()).toEqual(wb.manifest.split?.episodes[split]);
      expect(steps).toHaveLength(out.heldout[split].transitions);
      expect(steps.every((s) => s.state !== undefined && s.nextState !== undefined)).toBe(true);
    }
    const b = join(dir, "b");
    expect((await build(b, "--split-seed", "7")).code).toBe(0);
    expect(tree(b)).toEqual(tree(a));
    const same = await runMain(["--json", "worldbook", "diff", a, b]);
    expect(same.code).toBe(0);
    expect(json<{ identical: boolean }>(same).identical).toBe(true);
  }, 120_000);

  it("builds from JSONL traces without states (viewed by the family's viewer)", async () => {
    const s = openSqliteStore({ dir: store });
    const withStates = importTraces(s, ["run_fl"], { viewer: frozenLakeStateViewer }).steps;
    s.close();
    const bare: TraceStep[] = withStates.map(({ state: _s, nextState: _n, ...rest }) => rest);
    const file = join(dir, "bare.jsonl");
    writeTraceFile(file, bare);
    const out = join(dir, "from-file");
    const r = await runMain([
      "--json",
      "worldbook",
      "build",
      "--traces",
      file,
      "--out",
      out,
      "--split",
      "1,0,0",
    ]);
    expect(r.code, r.stdout).toBe(0);
    const result = json<BuildJson>(r);
    expect(result.splits.build.transitions).toBe(bare.length);
    expect(result.splits.test.transitions).toBe(0);
    expect(readFileSync(join(out, "heldout", "test.jsonl"), "utf8")).toBe("");
    const wb = readWorldbook(out);
    const first = wb.starts[0];
    const step = withStates.find((x) => x.episodeId === first?.episodeId && x.step === 0);
    expect(first?.state).toEqual(frozenLakeStateViewer.view(step!.observation));
  }, 120_000);

  it("show lists the rules (filtered by status) and one rule with its evidence; diff reports changed fields", async () => {
    const a = join(dir, "a");
    const table = await runMain(["worldbook", "show", a]);
    expect(table.code).toBe(0);
    const wb = readWorldbook(a);
    for (const rule of wb.rules) expect(table.stdout).toContain(rule.id);
    const listed = json<{ rules: Array<{ id: string; status: string }> }>(
      await runMain(["--json", "worldbook", "show", a, "--status", "supported"]),
    );
    expect(listed.rules.map((r) => r.id)).toEqual(
      wb.rules.filter((r) => r.status === "supported").map((r) => r.id),
    );
    const rule = wb.rules.find((r) => r.stochastic)!;
    const one = await runMain(["--json", "worldbook", "show", a, "--rule", rule.id]);
    const detail = json<{ rule: { id: string }; supporting: Array<{ provenance: { episodeId: string } }> }>(
      one,
    );
    expect(detail.rule.id).toBe(rule.id);
    expect(detail.supporting).toHaveLength(rule.support);
    const text = await runMain(["worldbook", "show", a, "--rule", rule.id]);
    expect(text.stdout).toContain(`supporting evidence (${rule.support})`);
    expect(text.stdout).toContain(`episode ${detail.supporting[0]?.provenance.episodeId}`);
    const unknown = await runMain(["--json", "worldbook", "show", a, "--rule", "nope"]);
    expect(unknown.code).toBe(2);
    expect(json<{ error: { code: string } }>(unknown).error.code).toBe("worldbook.unknown_rule");

    // Another split seed and support threshold: other episodes, other counts.
    const c = join(dir, "c");
    expect((await build(c, "--split-seed", "8", "--min-support", "1000")).code).toBe(0);
    const d = await runMain(["--json", "worldbook", "diff", a, c]);
    expect(d.code).toBe(0);
    const diff = json<{
      identical: boolean;
      manifest: { changes: Array<{ field: string }> };
      rules: {
        changed: Array<{ key: string; changes: Array<{ field: string; before: unknown; after: unknown }> }>;
      };
    }>(d);
    expect(diff.identical).toBe(false);
    expect(diff.manifest.changes.map((x) => x.field)).toEqual(
      expect.arrayContaining(["split.seed", "options"]),
    );
    const status = diff.rules.changed.flatMap((x) => x.changes).find((x) => x.field === "status");
    expect(status?.after).toBe("tentative");
    const human = await runMain(["worldbook", "diff", a, c]);
    expect(human.stdout).toMatch(/~ rule \S+: status "supported" → "tentative"/);
  }, 120_000);

  it("--llm reviews tentative rules through the endpoint, records reviews.json, and a plain rebuild drops it", async () => {
    const out = join(dir, "llm");
    const args = ["--split-seed", "7", "--min-support", "1000", "--llm", "--llm-max-rules", "1"];
    const env = (url: string) => llmEnv(url, "review-model");
    const llmBuild = () =>
      runMain(["--json", "worldbook", "build", "--runs", "run_fl", "--store", store, "--out", out, ...args], {
        env: env(server.baseUrl),
      });
    // No recorded answer: the provider error is typed (exit 4) and names the request.
    let server = await startReplayServer({ fixtures: { version: 1, entries: [] } });
    const failed = await llmBuild();
    await server.close();
    expect(failed.code).toBe(4);
    const key = server.requests[0]?.key as string;
    expect(key).toBeTruthy();
    const answer = '{"condition": null, "note": "the agent slips to either side"}';
    server = await startReplayServer({
      fixtures: { version: 1, entries: [{ key, responses: [{ texts: [answer] }] }] },
    });
    const ok = await llmBuild();
    await server.close();
    expect(ok.code, ok.stdout).toBe(0);
    const result = json<{
      reviews: { model: string; accepted: number; rejected: number; unreviewed: number };
      rules: { total: number };
    }>(ok);
    expect(result.reviews).toEqual({
      model: "review-model",
      accepted: 0,
      rejected: 1,
      unreviewed: result.rules.total - 1,
    });
    const wb = readWorldbook(out);
    const review = wb.reviews?.reviews[0];
    expect(review).toMatchObject({ status: "rejected", note: "the agent slips to either side", raw: answer });
    const shown = await runMain(["worldbook", "show", out, "--rule", review!.rule]);
    expect(shown.stdout).toContain(
      "review (rejected): no condition — the model proposed no condition; note: the agent slips to either side",
    );
    // Regression: a rebuild without --llm into the same directory leaves no stale reviews.json behind.
    const plain = await build(out, "--split-seed", "7", "--min-support", "1000");
    expect(plain.code).toBe(0);
    expect(Object.keys(tree(out))).not.toContain("reviews.json");
    expect(readWorldbook(out).reviews).toBeUndefined();
  }, 120_000);

  it("refuses an unknown run, bad fractions, an empty build split and a family without a viewer (exit 2)", async () => {
    const fail = async (args: string[], code: string) => {
      const r = await runMain(["--json", "worldbook", "build", ...args]);
      expect(r.code, r.stdout).toBe(2);
      const error = json<{ error: { code: string; message: string } }>(r).error;
      expect(error.code).toBe(code);
      expect(error.message).toContain("Fix:");
    };
    const out = join(dir, "refused");
    await fail(["--runs", "run_nope", "--store", store, "--out", out], "worldbook.unknown_run");
    await fail(
      ["--runs", "run_fl", "--store", store, "--out", out, "--split", "0.5,0.6,0"],
      "worldbook.bad_split",
    );
    await fail(
      ["--runs", "run_fl", "--store", store, "--out", out, "--split", "0.7,0.3"],
      "worldbook.bad_split",
    );
    await fail(["--out", out], "worldbook.no_traces");
    const s = openSqliteStore({ dir: store });
    const steps = importTraces(s, ["run_fl"]).steps;
    s.close();
    const two = [...new Set(steps.map((x) => x.episodeId))].slice(0, 2);
    const small = join(dir, "two.jsonl");
    writeTraceFile(
      small,
      steps.filter((x) => two.includes(x.episodeId)),
    );
    await fail(["--traces", small, "--out", out, "--split", "0.01,0.5,0.49"], "worldbook.empty_build_split");
    const alien = join(dir, "alien.jsonl");
    writeTraceFile(
      alien,
      steps.filter((x) => x.episodeId === two[0]).map((x) => ({ ...x, family: "alien" })),
    );
    await fail(["--traces", alien, "--out", out], "worldbook.no_state_viewer");
  }, 120_000);
});
