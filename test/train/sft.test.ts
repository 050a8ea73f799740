import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action, PolicyContext } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { exportSft, SFT_EXPORT_DEFAULTS } from "../../src/export/index.ts";
import { buildAgentMessages } from "../../src/llm/index.ts";
import { actionKey, logitsOf, logProb, Parameters, scoreState } from "../../src/policies/trainable/index.ts";
import { openSqliteStore, type SqliteRunStore } from "../../src/store/index.ts";
import {
  contextFromPrompt,
  readSftData,
  type SftExample,
  SftOptionsSchema,
  trainSft,
} from "../../src/train/index.ts";
import { noisyOraclePolicy, searchFrozenLake } from "../search/helpers.ts";

let dir: string;
let store: SqliteRunStore;
/** One TRL export (with weights) of the search, read back once (its examples, report and data). */
let examples: SftExample[];
let trlReport: ReturnType<typeof exportSft>;
let trlData: ReturnType<typeof readSftData>;
const runId = "search_for_sft";
const exportBase = { ...SFT_EXPORT_DEFAULTS, runId };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-train-sft-"));
  store = openSqliteStore({ dir: join(dir, "store") });
  await searchFrozenLake({
    store,
    runId,
    tasks: ["4x4", "random-5-0", "random-5-1"],
    policy: noisyOraclePolicy(0.6),
  });
  const out = join(dir, "trl.jsonl");
  trlReport = exportSft(store, { ...exportBase, format: "trl", out });
  trlData = readSftData(out);
  examples = trlData.examples;
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Mean log-likelihood of a task's targets under a policy. */
function taskLikelihood(
  kind: "tabular" | "linear",
  weights: Record<string, number>,
  examples: SftExample[],
  taskId: string,
) {
  const params = Parameters.from(weights);
  const mine = examples.filter((e) => e.taskId === taskId);
  return (
    mine.reduce((a, e) => {
      const s = scoreState(kind, e.context, e.target);
      const k = s.actions.findIndex((x) => actionKey(x) === actionKey(e.target));
      return a + logProb(logitsOf(params, s.features), k);
    }, 0) / mine.length
  );
}

describe("reading exports back", () => {
  it("parses the project's own TRL and ShareGPT exports into contexts and targets", () => {
    for (const format of ["trl", "sharegpt"] as const) {
      // The TRL file is the one the set-up wrote (the same export, read back once).
      const out = join(dir, `${format}.jsonl`);
      const report = format === "trl" ? trlReport : exportSft(store, { ...exportBase, format, out });
      const data = format === "trl" ? trlData : readSftData(out);
      expect(data.format).toBe(format);
      expect(data.family).toBe("frozenlake");
      expect(data.examples).toHaveLength(report.records);
      expect(data.contexts).toEqual({ exported: report.records, prompt: 0 });
      for (const e of data.examples) {
        expect(e.context.observation.legalActions).toHaveLength(4);
        expect(e.target.type).toBe("move");
        expect(e.weight).toBeGreaterThan(0);
        expect(e.context.observation.text).toMatch(/^[P_OG]+\n/);
        // The exported context: every earlier step of the path, not only the prompt's last 5 actions.
        expect(e.context.history.length).toBe(e.context.stepIndex);
      }
      // Every target is one of the policy's candidates (the legal moves).
      const plain = data.examples.every((e) =>
        scoreState("tabular", e.context).actions.some((a) => actionKey(a) === actionKey(e.target)),
      );
      expect(plain).toBe(true);
    }
  });

  it("a materialised file has no weight column: every record counts once", () => {
    const out = join(dir, "materialised.jsonl");
    exportSft(store, { ...exportBase, format: "trl", out, materializeWeights: true });
    const data = readSftData(out);
    expect(data.examples.every((e) => e.weight === 1)).toBe(true);
  });

  it("round-trips the prompt the llm policy builds (web fields, history, error)", async () => {
    const env = createFrozenLakeEnvironment({ slippery: false });
    const task = env.suite.get("4x4");
    const o0 = await env.reset({ taskId: task.id, seed: 0 });
    const move: Action = { type: "move", direction: "right" };
    const o1 = (await env.step(move)).observation;
    await env.close();
    const context: PolicyContext = {
      task,
      observation: {
        ...o1,
        url: "http://x/",
        title: "T",
        error: { code: "blocked", message: "it (really) failed" },
      },
      history: [{ observation: o0, action: move, raw: JSON.stringify(move) }],
      stepIndex: 1,
    };
    const [, user] = buildAgentMessages(context);
    const back = contextFromPrompt(String(user?.content), { taskId: task.id, family: "frozenlake" });
    expect(back?.observation.text).toBe(o1.text);
    expect(back?.observation.legalActions).toEqual(o1.legalActions);
    expect(back?.observation.url).toBe("http://x/");
    expect(back?.observation.title).toBe("T");
    expect(back?.observation.error).toEqual({ code: "blocked", message: "it (really) failed" });
    expect(back?.history.map((h) => h.action)).toEqual([move]);
    expect(back?.stepIndex).toBe(1);
    expect(back?.task.instruction).toBe(task.instruction);
    expect(contextFromPrompt("not a prompt", { taskId: "x", family: "web" })).toBeNull();
  });
});

describe("weighted SFT", () => {
  it("a weight of 2 is the same as the record twice", () => {
    const options = SftOptionsSchema.parse({ kind: "linear", epochs: 20 });
    const meta = { family: "frozenlake", seed: "0" };
    const doubled = examples.map((e, i) => (i === 0 ? { ...e, weight: 2 * e.weight } : e));
    const repeated = [...examples, examples[0] as SftExample];
    const a = trainSft(doubled, options, meta).checkpoint.weights;
    const b = trainSft(repeated, options, meta).checkpoint.weights;
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
    for (const k of Object.keys(a)) expect(a[k]).toBeCloseTo(b[k] ?? 0, 9);
  });

  it.each(["linear", "tabular"] as const)(
    "doubling one task's weight shifts the %s policy toward it",
    (kind) => {
      const options = SftOptionsSchema.parse({ kind, epochs: 150, learningRate: 1, l2: 0.01 });
      const meta = { family: "frozenlake", seed: "0" };
      const base = trainSft(examples, options, meta);
      const heavier = trainSft(
        examples.map((e) => (e.taskId === "4x4" ? { ...e, weight: 2 * e.weight } : e)),
        options,
        meta,
      );
      const before = taskLikelihood(kind, base.checkpoint.weights, examples, "4x4");
      const after = taskLikelihood(kind, heavier.checkpoint.weights, examples, "4x4");
      // Deterministic (SFT draws nothing): linear +0.0075 nats, tabular more.
      expect(after).toBeGreaterThan(before + 0.005);
      // Training lowers the loss, and the same data give the same checkpoint.
      expect(base.curve.at(-1)?.loss ?? 0).toBeLessThan(base.curve[0]?.loss ?? 0);
      expect(trainSft(examples, options, meta).checkpoint).toEqual(base.checkpoint);
    },
    // Three full trainings: ~3 s of CPU (dense batch), ~9 s at a load of 20; the limit leaves room.
    300_000,
  );
});
