import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../../src/policies/trainable/index.ts";
import { json, runMain } from "../cli/run-cli.ts";

let dir: string;
let config: string;
let store: string;
let grpoCkpt: string;

interface CurvePoint {
  iteration: number;
  successRate: number;
}

/** `rehearsal --json COMMAND -c config --store store ...rest`; COMMAND may be two words ("train grpo"). */
const cli = (command: string, ...rest: string[]) =>
  runMain(["--json", ...command.split(" "), "-c", config, "--store", store, ...rest]);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-train-cli-"));
  store = join(dir, "store");
  config = join(dir, "fl.yaml");
  writeFileSync(
    config,
    `env: frozenlake\ntasks: [4x4]\nenvOptions: {slippery: false}\nsearch: {maxNodesPerTree: 40}\n`,
  );
  grpoCkpt = join(dir, "grpo.json");
  const r = await cli(
    "train grpo",
    "--group",
    "16",
    "--iterations",
    "40",
    "--lr",
    "1",
    "--beta",
    "0",
    "--seed",
    "0",
    "--out",
    grpoCkpt,
  );
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("rehearsal train grpo (FrozenLake 4x4, non-slippery)", () => {
  it("improves success over the initial (uniform) policy and writes curve and per-iteration checkpoints", () => {
    const curve = JSON.parse(readFileSync(`${grpoCkpt}.curve.json`, "utf8")).points as CurvePoint[];
    expect(curve).toHaveLength(40);
    const first = mean(curve.slice(0, 5).map((p) => p.successRate));
    const last = mean(curve.slice(-5).map((p) => p.successRate));
    expect(last).toBeGreaterThan(first + 0.3);
    expect(readFileSync(`${grpoCkpt}.curve.svg`, "utf8")).toContain("<svg");
    expect(existsSync(join(`${grpoCkpt}.iters`, "iter-0001.json"))).toBe(true);
    expect(readCheckpoint(join(`${grpoCkpt}.iters`, "iter-0040.json"))).toEqual(readCheckpoint(grpoCkpt));
    expect(readCheckpoint(grpoCkpt).training?.iterations).toBe(40);
  });

  it("--resume continues from the last iteration to the same checkpoint as one uninterrupted run", async () => {
    const grpo = (out: string, n: string) =>
      cli("train grpo", "--group", "4", "--iterations", n, "--seed", "5", "--out", out);
    const whole = join(dir, "whole.json");
    const part = join(dir, "part.json");
    expect((await grpo(whole, "4")).code).toBe(0);
    expect((await grpo(part, "2")).code).toBe(0);
    const resumed = await cli("train grpo", "--iterations", "4", "--resume", "--out", part);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json<{ iterations: number }>(resumed).iterations).toBe(4);
    expect(readCheckpoint(part).weights).toEqual(readCheckpoint(whole).weights);
    expect(readCheckpoint(part).training?.curve).toEqual(readCheckpoint(whole).training?.curve);
  });
});

describe("trained checkpoints as --policy tabular:FILE / linear:FILE", () => {
  it("run, eval and search accept the GRPO checkpoint; greedy play solves the map", async () => {
    const policy = `tabular:${grpoCkpt}`;
    const run = await cli("run", "--policy", policy, "-n", "2", "--temperature", "0");
    expect(run.code, run.stderr).toBe(0);
    expect(json<{ summary: { successes: number } }>(run).summary.successes).toBe(2);
    const ev = await cli("eval", "--policy", policy, "--rollouts", "8");
    expect(ev.code, ev.stderr).toBe(0);
    const search = await cli("search", "--policy", policy);
    expect(search.code, search.stderr).toBe(0);
  });

  it("train sft on a CLI export of a search (by the GRPO policy); the linear checkpoint plays", async () => {
    const search = await cli("search", "--policy", `tabular:${grpoCkpt}`, "--seed", "1");
    expect(search.code, search.stderr).toBe(0);
    const runId = json<{ runId: string }>(search).runId;
    const data = join(dir, "sft.jsonl");
    const exp = await runMain(["--json", "export", "sft", "--run", runId, "--out", data, "--store", store]);
    expect(exp.code, exp.stdout + exp.stderr).toBe(0);
    const ckpt = join(dir, "sft-linear.json");
    const sft = await runMain([
      "--json",
      "train",
      "sft",
      "--data",
      data,
      "--policy",
      "linear",
      "--epochs",
      "50",
      "--out",
      ckpt,
    ]);
    expect(sft.code, sft.stdout + sft.stderr).toBe(0);
    const out = json<{ examples: number; lossFirst: number; lossLast: number; family: string }>(sft);
    expect(out.family).toBe("frozenlake");
    expect(out.examples).toBeGreaterThan(0);
    expect(out.lossLast).toBeLessThan(out.lossFirst);
    const run = await cli("run", "--policy", `linear:${ckpt}`, "-n", "2");
    expect(run.code, run.stderr).toBe(0);
  });

  it("a missing, mismatched or invalid checkpoint is a user error (exit 2) naming the fix", async () => {
    const missing = await cli("run", "--policy", `tabular:${join(dir, "nope.json")}`);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain("checkpoint.unreadable");
    const kind = await cli("run", "--policy", `linear:${grpoCkpt}`);
    expect(kind.code).toBe(2);
    expect(kind.stdout).toContain(`tabular:${grpoCkpt}`);
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ format: "rehearsal-trainable-policy", version: 9, kind: "tabular", weights: {} }),
    );
    const invalid = await cli("run", "--policy", `tabular:${bad}`);
    expect(invalid.code).toBe(2);
    expect(invalid.stdout).toContain("checkpoint.invalid");
    const unknown = await cli("run", "--policy", "tabular");
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toContain("--policy: expected one of random");
    expect(unknown.stdout).toContain("tabular:FILE");
    const chess = await runMain([
      "--json",
      "run",
      "--env",
      "chess",
      "--store",
      store,
      "--policy",
      `tabular:${grpoCkpt}`,
    ]);
    expect(chess.code).toBe(2);
    expect(chess.stdout).toContain("checkpoint_family");
  });
});
