import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SklSdOptionsSchema } from "../../src/experiments/frozenlake/sd-options.ts";
import { runSklSdPipeline } from "../../src/experiments/frozenlake/sd-pipeline.ts";
import { SdActionRecordSchema, SdReflectRecordSchema } from "../../src/export/skl-sd-datasets.ts";
import { SD_FILES, type SklSdManifest } from "../../src/export/skl-sd-manifest.ts";
import { KnowledgeOptionsError } from "../../src/knowledge/errors.ts";
import type { KnowledgeWriter } from "../../src/knowledge/writer.ts";
import { chatCompletionBody } from "../llm/helpers.ts";

const root = mkdtempSync(join(tmpdir(), "skl-sd-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Small 3x3 maps: random walks succeed often enough to fill every dataset within milliseconds. */
const SMALL = { maps: 20, mapSize: 3, iterations: 2, seed: 1 } as const;

function lines(path: string): unknown[] {
  const text = readFileSync(path, "utf8");
  return text === ""
    ? []
    : text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown);
}

function manifestAt(dir: string): SklSdManifest {
  return JSON.parse(readFileSync(join(dir, SD_FILES.manifest), "utf8")) as SklSdManifest;
}

describe("runSklSdPipeline", () => {
  it("writes D_base, D_distill and D_reflect as valid TRL conversational JSONL plus a manifest", async () => {
    const outDir = join(root, "a");
    const result = await runSklSdPipeline({ ...SMALL, outDir });
    const base = lines(join(outDir, SD_FILES.base));
    const distill = lines(join(outDir, SD_FILES.distill));
    const reflect = lines(join(outDir, SD_FILES.reflect));
    expect(base.length).toBeGreaterThan(0);
    expect(distill.length).toBeGreaterThan(0);
    expect(reflect.length).toBeGreaterThan(0);
    for (const r of base) expect(SdActionRecordSchema.parse(r).metadata.dataset).toBe("base");
    for (const r of distill) expect(SdActionRecordSchema.parse(r).metadata.dataset).toBe("distill");
    for (const r of reflect) SdReflectRecordSchema.parse(r);

    const b = SdActionRecordSchema.parse(base[0]);
    expect(b.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(b.metadata.knowledgeShown).toBe(true);
    expect(b.messages[1]?.content).toContain("Knowledge about this state:");
    expect(JSON.parse(b.messages[2]?.content as string)).toMatchObject({ type: "move" });

    const r = SdReflectRecordSchema.parse(reflect[0]);
    expect(JSON.parse(r.messages.at(-1)?.content as string)).toEqual({
      skip: false,
      knowledge: r.metadata.newKnowledge,
    });
    expect(r.metadata.newKnowledge).not.toBe(r.metadata.oldKnowledge);

    const manifest = manifestAt(outDir);
    expect(manifest).toEqual(JSON.parse(JSON.stringify(result.manifest)));
    expect(manifest.files.base.records).toBe(base.length);
    expect(manifest.files.distill.records).toBe(distill.length);
    expect(manifest.files.reflect.records).toBe(reflect.length);
    expect(manifest.writer).toBe("statistical");
    expect(manifest.options).not.toHaveProperty("outDir");
    const retries = manifest.iterations.reduce((n, i) => n + i.retrySuccesses, 0);
    expect(new Set(distill.map((d) => SdActionRecordSchema.parse(d).metadata.episodeId)).size).toBe(retries);
  });

  it("is deterministic: the same options give byte-identical files", async () => {
    const a = join(root, "det-1");
    const b = join(root, "det-2");
    await runSklSdPipeline({ ...SMALL, outDir: a });
    await runSklSdPipeline({ ...SMALL, outDir: b });
    for (const file of Object.values(SD_FILES)) {
      expect(readFileSync(join(a, file)).equals(readFileSync(join(b, file))), file).toBe(true);
    }
    const other = join(root, "det-3");
    await runSklSdPipeline({ ...SMALL, seed: 2, outDir: other });
    expect(readFileSync(join(a, SD_FILES.base)).equals(readFileSync(join(other, SD_FILES.base)))).toBe(false);
  });

  it("keeps the retry's pre-filled knowledge out of the D_distill prompts", async () => {
    const outDir = join(root, "distill");
    const result = await runSklSdPipeline({ ...SMALL, outDir });
    expect(result.records.distill.length).toBeGreaterThan(0);
    for (const record of result.records.distill) {
      expect(record.metadata.knowledgeShown).toBe(false);
      const prompt = record.messages
        .slice(0, -1)
        .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
        .join("\n");
      expect(prompt).not.toContain("Knowledge about this state");
      // No version of the state's knowledge (the refined one the retry acted on included) is shown.
      const versions = result.table.history(record.metadata.stateKey);
      for (const v of versions) expect(prompt).not.toContain(v.text);
    }
    // The retry did act on refined knowledge: every corrected episode has D_reflect updates.
    const corrected = new Set(
      result.records.reflect.map((r) => `${r.metadata.taskId}:${r.metadata.iteration}`),
    );
    for (const record of result.records.distill)
      expect(corrected.has(`${record.metadata.taskId}:${record.metadata.iteration}`)).toBe(true);
  });

  it("bootstraps on a uniform ~20 % sample of the failed episodes' states with sampleFraction 0.2", async () => {
    const full = await runSklSdPipeline({
      maps: 30,
      mapSize: 5,
      iterations: 2,
      seed: 3,
      outDir: join(root, "full"),
    });
    const sampled = await runSklSdPipeline({
      maps: 30,
      mapSize: 5,
      iterations: 2,
      seed: 3,
      sampleFraction: 0.2,
      outDir: join(root, "sampled"),
    });
    for (const it of full.manifest.iterations) expect(it.statesSampled).toBe(it.statesConsidered);
    for (const it of sampled.manifest.iterations) {
      expect(it.statesConsidered).toBeGreaterThanOrEqual(50);
      const ratio = it.statesSampled / it.statesConsidered;
      expect(ratio).toBeGreaterThan(0.15);
      expect(ratio).toBeLessThan(0.25);
      // Each sampled state gets at most one MC and one TD update per failed episode visiting it.
      expect(it.updates).toBeLessThan(full.manifest.iterations[it.iteration]?.updates ?? 0);
    }
    expect(sampled.manifest.options.sampleFraction).toBe(0.2);
  });

  it("records λ1 and λ2 (defaults 1, configurable) with the loss in the manifest", async () => {
    await runSklSdPipeline({ ...SMALL, iterations: 1, outDir: join(root, "lambda-default") });
    const defaults = manifestAt(join(root, "lambda-default"));
    expect(defaults.loss.lambda1).toBe(1);
    expect(defaults.loss.lambda2).toBe(1);
    expect(defaults.loss.formula).toBe("L = PG(D_base) + λ1·PG(D_distill) + λ2·SFT(D_reflect)");
    const outDir = join(root, "lambda");
    await runSklSdPipeline({ ...SMALL, iterations: 1, lambda1: 0.5, lambda2: 2, outDir });
    const m = manifestAt(outDir);
    expect(m.loss.lambda1).toBe(0.5);
    expect(m.loss.lambda2).toBe(2);
    expect(m.loss.terms.map((t) => [t.dataset, t.loss, t.weight])).toEqual([
      ["base", "PG", 1],
      ["distill", "PG", 0.5],
      ["reflect", "SFT", 2],
    ]);
    expect(m.options.lambda1).toBe(0.5);
  });

  it("discards skipped updates: a writer that always skips yields no D_reflect records", async () => {
    const skipping: KnowledgeWriter = {
      name: "skipper",
      understand: async () => null,
      bootstrap: async () => null,
      reflectTrajectory: async () => [],
    };
    const result = await runSklSdPipeline({ ...SMALL, outDir: join(root, "skip") }, { writer: skipping });
    expect(result.records.reflect).toHaveLength(0);
    expect(result.table.size).toBe(0);
    expect(result.manifest.writer).toBe("skipper");
  });

  it("rejects bad options with a KnowledgeOptionsError", async () => {
    expect(SklSdOptionsSchema.safeParse({ outDir: "x" }).success).toBe(true);
    await expect(runSklSdPipeline({ outDir: join(root, "bad"), sampleFraction: 0 })).rejects.toBeInstanceOf(
      KnowledgeOptionsError,
    );
    await expect(runSklSdPipeline({ outDir: join(root, "bad"), writer: "llm" })).rejects.toBeInstanceOf(
      KnowledgeOptionsError,
    );
  });

  it("runs with the llm writer: skips are discarded and D_reflect holds the prompts the model saw", async () => {
    const seen = new Set<string>();
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += String(chunk);
      });
      req.on("end", () => {
        const request = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
        const prompt = JSON.stringify(request.messages);
        seen.add(prompt);
        const user = request.messages.at(-1)?.content ?? "";
        const answer = user.includes("TD update")
          ? '{"skip": true}'
          : `Here you go:\n\`\`\`json\n${JSON.stringify({
              skip: false,
              knowledge: `K:${createHash("sha256").update(prompt).digest("hex").slice(0, 12)}`,
              values: { down: 0.3, right: 0.2, left: -0.5, up: -0.5 },
            })}\n\`\`\``;
        res.writeHead(200, { "content-type": "application/json" });
        res.end(chatCompletionBody(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const outDir = join(root, "llm");
      const result = await runSklSdPipeline({
        ...SMALL,
        writer: "llm",
        llm: { baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", apiKey: "secret-key", maxRetries: 0 },
        outDir,
      });
      expect(result.manifest.writer).toBe("llm");
      expect(readFileSync(join(outDir, SD_FILES.manifest), "utf8")).not.toContain("secret-key");
      expect(result.records.reflect.length).toBeGreaterThan(0);
      for (const r of result.records.reflect) {
        expect(r.metadata.mode).toBe("understand");
        expect(r.metadata.writer).toBe("llm");
        expect(r.metadata.newKnowledge).toMatch(/^K:[0-9a-f]{12}$/);
        expect(seen.has(JSON.stringify(r.messages.slice(0, -1)))).toBe(true);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
