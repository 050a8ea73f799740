import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type RolloutGroupsReport,
  type TrlRlRecord,
  TrlRlRecordSchema,
  VerlRlRecordSchema,
} from "../../src/rl/index.ts";
import { lakeRolloutGroups, plainRun } from "./rl-helpers.ts";
import { json, runMain, withStore } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-rlexport-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = join(dir, "store");

/** A seeded `rl rollouts` of the random policy on FrozenLake (real episodes); its run id and groups. */
async function rollouts(tasks: string, group: number, extra: string[]) {
  const r = await lakeRolloutGroups({ store, tasks, group, extra: ["--t-max", "10", ...extra] });
  expect(r.code, r.stderr).toBe(0);
  const out = json<{ runId: string; summary: { rl: RolloutGroupsReport } }>(r);
  return { runId: out.runId, rl: out.summary.rl };
}

const exportRun = (runId: string, out: string, format: string) =>
  runMain(["--json", "rl", "export", "--run", runId, "--out", out, "--format", format, "--store", store]);

/** The TRL rows of a file, each re-parsed by the schema (as `datasets`' JSON loader reads lines). */
const readTrl = (file: string): TrlRlRecord[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => TrlRlRecordSchema.parse(JSON.parse(l)));

/** Every row of a Parquet file, read by DuckDB (an independent reader), with its column types. */
async function readParquet(file: string) {
  const db = await DuckDBInstance.create(":memory:");
  const c = await db.connect();
  try {
    const r = await c.runAndReadAll(`select * from '${file}'`);
    return {
      names: r.columnNames(),
      types: r.columnTypes().map(String),
      rows: r.getRowObjectsJson() as Array<Record<string, unknown>>,
    };
  } finally {
    c.closeSync();
    db.closeSync();
  }
}

describe("rehearsal rl export", () => {
  let plain = { runId: "", rl: undefined as unknown as RolloutGroupsReport };
  let wm = { runId: "", rl: undefined as unknown as RolloutGroupsReport };
  beforeAll(async () => {
    plain = await rollouts("4x4,8x8", 3, ["--seed", "5"]);
    wm = await rollouts("4x4", 3, ["--wm", "perfect", "--wm-cap", "2", "--seed", "6"]);
  }, 240_000);

  it("TRL rows of a wm-lookahead run split each step into policy text and WM answers, masked", async () => {
    const out = join(dir, "wm.jsonl");
    const r = await exportRun(wm.runId, out, "trl");
    expect(r.code, r.stderr).toBe(0);
    const rows = readTrl(out);
    const members = wm.rl.groups.flatMap((g) => g.members);
    expect(rows.map((x) => x.trajectory_id)).toEqual(members.map((m) => m.trajectoryId));
    let answers = 0;
    withStore(store, (s) => {
      for (const row of rows) {
        const steps = s.getTrajectory(row.trajectory_id)?.steps ?? [];
        expect(steps).toHaveLength(row.length);
        // Consecutive non-observation messages are one step: joined, they are its raw text.
        const stepTexts: string[] = [];
        let open = false;
        row.completion.forEach((m, i) => {
          const source = row.completion_sources[i];
          if (source === "observation") open = false;
          else if (open) stepTexts[stepTexts.length - 1] += m.content;
          else {
            stepTexts.push(m.content);
            open = true;
          }
          expect(row.completion_mask[i]).toBe(source === "policy");
          expect(m.role).toBe(source === "policy" ? "assistant" : "user");
        });
        expect(stepTexts).toEqual(steps.map((st) => st.raw));
        const rowAnswers = row.completion_sources.filter((x) => x === "wm_answer").length;
        expect(rowAnswers).toBe(row.wm_calls);
        answers += rowAnswers;
        // The flat form: every span (code points) covers its message.
        const points = Array.from(row.completion_text);
        expect(row.completion_spans.map(([a, b]) => points.slice(a, b).join(""))).toEqual(
          row.completion.map((m) => m.content),
        );
      }
    });
    expect(answers).toBeGreaterThan(0);
  });

  it("verl Parquet rows read back by DuckDB match the store, nested, byte-identical on a second export", async () => {
    for (const run of [plain, wm]) {
      const out = join(dir, `${run.runId}.parquet`);
      const r = await exportRun(run.runId, out, "verl");
      expect(r.code, r.stderr).toBe(0);
      const members = run.rl.groups.flatMap((g) => g.members.map((m) => ({ g, m })));
      expect(json<{ records: number; format: string }>(r)).toMatchObject({
        records: members.length,
        format: "verl",
      });
      const pq = await readParquet(out);
      expect(pq.names).toEqual(["data_source", "prompt", "ability", "reward_model", "extra_info"]);
      expect(pq.types[0]).toBe("VARCHAR");
      expect(pq.types[1]).toBe('STRUCT("role" VARCHAR, "content" VARCHAR)[]');
      expect(pq.types[3]).toBe('STRUCT("style" VARCHAR, "ground_truth" VARCHAR)');
      expect(pq.types[4]).toMatch(/^STRUCT\("split" VARCHAR, "index" BIGINT, .*"advantage" DOUBLE, /);
      expect(pq.types[4]).toContain('"completion_mask" BOOLEAN[]');
      expect(pq.rows).toHaveLength(members.length);
      const trlFile = join(dir, `${run.runId}.jsonl`);
      expect((await exportRun(run.runId, trlFile, "trl")).code).toBe(0);
      const trl = readTrl(trlFile);
      pq.rows.forEach((row, i) => {
        const { g, m } = members[i] as (typeof members)[number];
        const e = row.extra_info as Record<string, unknown>;
        expect(row.data_source).toBe("rehearsal/frozenlake");
        expect(row.ability).toBe("frozenlake");
        expect(row.prompt).toEqual(trl[i]?.prompt);
        const rm = row.reward_model as { style: string; ground_truth: string };
        expect(rm.style).toBe("rule");
        expect(JSON.parse(rm.ground_truth)).toMatchObject({ task_id: g.taskId, seed: g.groupSeed });
        expect(e).toMatchObject({
          split: "train",
          group_id: g.groupId,
          task_id: g.taskId,
          trajectory_id: m.trajectoryId,
          success: m.success,
          reward: m.reward,
          advantage: m.advantage,
          reward_wm: m.parts.wm,
          wm_calls: m.wmCalls,
          completion: trl[i]?.completion,
          completion_mask: trl[i]?.completion_mask,
          completion_sources: trl[i]?.completion_sources,
        });
        expect(Number(e.index)).toBe(i);
        expect(Number(e.member)).toBe(m.member);
        expect(Number(e.length)).toBe(m.length);
        VerlRlRecordSchema.parse({
          ...row,
          extra_info: {
            ...e,
            index: Number(e.index),
            member: Number(e.member),
            length: Number(e.length),
            group_seed: Number(e.group_seed),
          },
        });
      });
      const again = join(dir, `${run.runId}-again.parquet`);
      expect((await exportRun(run.runId, again, "verl")).code).toBe(0);
      expect(readFileSync(again).equals(readFileSync(out))).toBe(true);
    }
  });

  it("a bad --format, an unwritable --out and a run that is not an rl run are user errors (exit 2)", async () => {
    /** Under --json the error is the JSON result on stdout; the message is in it. */
    const said = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`;
    const bad = await exportRun(plain.runId, join(dir, "x.out"), "csv");
    expect(bad.code).toBe(2);
    expect(said(bad)).toMatch(/--format trl .*--format verl/);
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const unwritable = await exportRun(plain.runId, join(file, "rows.parquet"), "verl");
    expect(unwritable.code).toBe(2);
    expect(said(unwritable)).toMatch(/cannot write .*Fix: choose a path/);
    const stdout = await exportRun(plain.runId, "-", "verl");
    expect(stdout.code).toBe(2);
    expect(said(stdout)).toMatch(/name a file, e\.g\. --out rows\.parquet/);
    const notRlRun = await plainRun(store);
    for (const format of ["trl", "verl"]) {
      const notRl = await exportRun(notRlRun, join(dir, `not-rl.${format}`), format);
      expect(notRl.code).toBe(2);
      expect(said(notRl)).toMatch(/takes a run of 'rehearsal rl rollouts'/);
    }
  });
});
