import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import {
  formatWmAnswer,
  maskCompletion,
  VERL_COLUMNS,
  type VerlRlRecord,
  VerlRlRecordSchema,
  verlParquet,
} from "../../src/rl/index.ts";
import { parquetSchema } from "../../src/rl/parquet-columns.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-verl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answer = formatWmAnswer({
  observation: { text: "F🧊F" },
  reward: 0,
  terminated: false,
  truncated: false,
  success: false,
});

/** A valid record `i`; its completion has a WM answer between policy text. */
function record(i: number): VerlRlRecord {
  const c = maskCompletion([
    { kind: "step", raw: `<call_wm>down</call_wm>\n${answer}\nAction: ${i} ✓` },
    { kind: "observation", text: "next" },
    { kind: "step", raw: "Action: up" },
  ]);
  return VerlRlRecordSchema.parse({
    data_source: "rehearsal/frozenlake",
    prompt: [
      { role: "system", content: "You play FrozenLake." },
      { role: "user", content: `start ${i} 🧊` },
    ],
    ability: "frozenlake",
    reward_model: { style: "rule", ground_truth: `{"task_id":"t${i}"}` },
    extra_info: {
      split: "train",
      index: i,
      group_id: "run:t",
      task_id: `t${i}`,
      trajectory_id: `tr${i}`,
      member: i % 4,
      group_seed: 2 ** 40 + i,
      reward: i / 3,
      reward_success: 1,
      reward_length: -0.1,
      reward_wm: 0.5,
      advantage: -i / 7,
      success: i % 2 === 0,
      length: 2,
      wm_calls: 1,
      completion: c.messages,
      completion_mask: c.mask,
      completion_sources: c.sources,
    },
  });
}

async function query(file: string, sql: string) {
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  try {
    const r = await conn.runAndReadAll(sql.replace("FILE", `'${file}'`));
    return { names: r.columnNames(), rows: r.getRowObjectsJson() as Array<Record<string, unknown>> };
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe("verl Parquet", () => {
  it("describes the nested columns as 3-level lists and groups, every field required", () => {
    const schema = parquetSchema(VERL_COLUMNS);
    expect(schema[0]).toEqual({ name: "root", num_children: 5 });
    const names = schema.map((e) => e.name);
    expect(names.slice(0, 7)).toEqual([
      "root",
      "data_source",
      "prompt",
      "list",
      "element",
      "role",
      "content",
    ]);
    expect(schema.filter((e) => e.name === "list").every((e) => e.repetition_type === "REPEATED")).toBe(true);
    expect(
      schema
        .filter((e) => e.name !== "root" && e.name !== "list")
        .every((e) => e.repetition_type === "REQUIRED"),
    ).toBe(true);
  });

  it("writes rows DuckDB reads back value for value (int64, unicode, nested lists), same bytes twice", async () => {
    const records = Array.from({ length: 1003 }, (_, i) => record(i)); // two row groups
    const bytes = await verlParquet(records, { runId: "run" });
    expect(Buffer.from(await verlParquet(records, { runId: "run" })).equals(Buffer.from(bytes))).toBe(true);
    const file = join(dir, "rows.parquet");
    writeFileSync(file, bytes);
    const all = await query(file, "select * from FILE order by extra_info.index");
    expect(all.rows).toHaveLength(1003);
    for (const i of [0, 1, 999, 1000, 1002]) {
      const got = all.rows[i] as Record<string, unknown> & { extra_info: Record<string, unknown> };
      const want = record(i);
      expect(got.prompt).toEqual(want.prompt);
      expect(got.reward_model).toEqual(want.reward_model);
      expect(got.extra_info.completion).toEqual(want.extra_info.completion);
      expect(got.extra_info.completion_mask).toEqual([true, false, true, false, true]);
      expect(got.extra_info.completion_sources).toEqual(want.extra_info.completion_sources);
      expect(got.extra_info.reward).toBe(want.extra_info.reward);
      expect(got.extra_info.advantage).toBe(want.extra_info.advantage);
      expect(got.extra_info.success).toBe(want.extra_info.success);
      expect(String(got.extra_info.group_seed)).toBe(String(2 ** 40 + i));
    }
    const groups = await query(file, "select count(distinct row_group_id) as n from parquet_metadata(FILE)");
    expect(Number(groups.rows[0]?.n)).toBe(2);
    const meta = await query(file, "select key, value from parquet_kv_metadata(FILE)");
    expect(meta.rows.map((r) => [String(r.key), String(r.value)])).toContainEqual(["rehearsal.run", "run"]);
  });

  it("writes an empty file with the same columns for a run without rows", async () => {
    const file = join(dir, "empty.parquet");
    writeFileSync(file, await verlParquet([], { runId: "empty" }));
    const r = await query(file, "select * from FILE");
    expect(r.rows).toEqual([]);
    expect(r.names).toEqual(["data_source", "prompt", "ability", "reward_model", "extra_info"]);
  });

  it("refuses a record whose mask does not follow its completion", () => {
    const r = record(0);
    const bad = { ...r, extra_info: { ...r.extra_info, completion_mask: [true, true, true, false, true] } };
    expect(VerlRlRecordSchema.safeParse(bad).success).toBe(false);
  });
});
