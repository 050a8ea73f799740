import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../src/core/index.ts";
import {
  ExportedContextSchema,
  exportSft,
  SFT_EXPORT_DEFAULTS,
  TrlRecordSchema,
} from "../../src/export/index.ts";
import { buildAgentMessages } from "../../src/llm/index.ts";
import { actionKey, candidateActions } from "../../src/policies/trainable/index.ts";
import { executeSearch, RunConfigSchema } from "../../src/runner/index.ts";
import type { RunStore } from "../../src/store/contract.ts";
import { createMemoryStore } from "../../src/store/index.ts";
import { familyFromSystemPrompt, readSftData, SftOptionsSchema, trainSft } from "../../src/train/index.ts";
import { json, runMain } from "../cli/run-cli.ts";

/**
 * The terminal candidates are the template policy's commands, built from every earlier output of the
 * episode (`observation.data.stdout`): a context rebuilt from the prompt text alone lacks them. The
 * export carries the context the policy saw, and `train sft` reads it back.
 */
let dir: string;
let store: RunStore;
let runId: string;
const TASKS = ["find-and-copy", "rename-txt-to-md", "count-matching-lines"];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "rehearsal-sft-context-"));
  store = createMemoryStore();
  const outcome = await executeSearch(
    { runtime: createRuntime({ seed: "ctx" }), store },
    {
      config: RunConfigSchema.parse({
        env: "terminal",
        policy: "template",
        tasks: TASKS,
        seed: "0",
        temperature: 1,
        search: { maxNodesPerTree: 24 },
      }),
      storeDir: "memory",
    },
  );
  runId = outcome.runId;
}, 300_000);
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function outsideCount(file: string): { outside: number; examples: number } {
  const data = readSftData(file);
  const outside = data.examples.filter(
    (e) => !candidateActions(e.context).some((a) => actionKey(a) === actionKey(e.target)),
  ).length;
  const result = trainSft(data.examples, SftOptionsSchema.parse({ kind: "linear", epochs: 2 }), {
    family: data.family,
    seed: "0",
  });
  expect(result.targetsOutsideCandidates).toBe(outside);
  return { outside, examples: data.examples.length };
}

describe("terminal SFT contexts", () => {
  it("every target of a real terminal export is among the candidates of its exported context", () => {
    for (const format of ["trl", "sharegpt"] as const) {
      const out = join(dir, `ctx.${format}.jsonl`);
      const report = exportSft(store, { ...SFT_EXPORT_DEFAULTS, runId, format, out });
      expect(report.records).toBeGreaterThan(10);
      expect(new Set(report.perTask.filter((t) => t.records > 0).map((t) => t.taskId)).size).toBe(3);
      const data = readSftData(out);
      expect(data.family).toBe("terminal");
      expect(data.contexts).toEqual({ exported: report.records, prompt: 0 });
      // The full path: every earlier step with its observation's data (the outputs the template reads).
      for (const e of data.examples) {
        expect(e.context.history).toHaveLength(e.context.stepIndex);
        if (e.context.stepIndex > 0) expect(typeof e.context.observation.data?.stdout).toBe("string");
      }
      expect(outsideCount(out)).toEqual({ outside: 0, examples: report.records });
    }
  });

  it("the prompt-only path (a file without contexts) misses targets, and says how many", async () => {
    const out = join(dir, "bare.jsonl");
    const report = exportSft(store, { ...SFT_EXPORT_DEFAULTS, runId, out, context: false });
    const line = readFileSync(out, "utf8").split("\n")[0] ?? "";
    expect(TrlRecordSchema.parse(JSON.parse(line)).context).toBeUndefined();
    expect(readSftData(out).contexts).toEqual({ exported: 0, prompt: report.records });
    const bare = outsideCount(out);
    expect(bare.outside).toBeGreaterThan(0);

    const r = await runMain([
      "--json",
      "train",
      "sft",
      "--data",
      out,
      "--policy",
      "linear",
      "--epochs",
      "2",
      "--out",
      join(dir, "bare.ckpt.json"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const result = json<{ targetsOutsideCandidates: number; contexts: { exported: number; prompt: number } }>(
      r,
    );
    expect(result.targetsOutsideCandidates).toBe(bare.outside);
    expect(result.contexts).toEqual({ exported: 0, prompt: report.records });
    expect(r.stderr).toMatch(/rebuilt from the prompt text/);
  });

  it("the context field is versioned and validated", () => {
    const out = join(dir, "ctx.trl.jsonl");
    const record = JSON.parse(readFileSync(out, "utf8").split("\n")[0] ?? "{}");
    expect(ExportedContextSchema.parse(record.context).version).toBe(1);
    expect(record.context.observation.screenshot).toBeUndefined();
    expect(() => TrlRecordSchema.parse({ ...record, context: { ...record.context, version: 2 } })).toThrow();
  });
});

describe("the family of a file without contexts", () => {
  it("is read from the system prompt's action list, the web's included", () => {
    for (const family of ["web", "frozenlake", "chess", "terminal"]) {
      const context = {
        task: {
          id: "t",
          instruction: "x",
          family,
          seed: 0,
          split: "train" as const,
          verifier: { kind: "k" },
          tags: [],
        },
        observation: { text: "o" },
        history: [],
        stepIndex: 0,
      };
      const [system] = buildAgentMessages(context);
      expect(familyFromSystemPrompt(String(system?.content))).toBe(family);
    }
  });
});
