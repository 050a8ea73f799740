import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  createRandom,
  type GridDirection,
  type Observation,
  type StateRecord,
} from "../../src/core/index.ts";
import type { FrozenLakeConfigInput } from "../../src/envs/frozenlake/index.ts";
import {
  buildWorldbook,
  type Rule,
  readWorldbook,
  type TraceStep,
  WORLDBOOK_INVALID,
  writeWorldbook,
} from "../../src/worldmodel/index.ts";
import { DELTA, DIRS, distribution, pad4, SIDES, singleMapRandomTraces } from "./traces-helpers.ts";

const OPEN_MAP = ["SFFFF", "FFFFF", "FFFFF", "FFFFF", "FFFFG"];

/** A local view: the agent's cell and the map's tiles, read from the observation's grid text. */
function view(observation: Observation, rows: ReadonlyArray<string>): StateRecord {
  const lines = observation.text.split("\n").slice(0, rows.length);
  const state: StateRecord = {};
  lines.forEach((line, r) => {
    [...line].forEach((ch, c) => {
      if (ch === "P") {
        state["agent.row"] = r;
        state["agent.col"] = c;
      }
      state[`cell.${r}.${c}`] = (rows[r] as string)[c] as string;
    });
  });
  return state;
}

/** Traces of a uniformly random policy on one custom map (seeded). */
async function traces(config: FrozenLakeConfigInput, rows: string[], episodes: number): Promise<TraceStep[]> {
  return singleMapRandomTraces({
    config,
    rows,
    episodes,
    horizon: 60,
    random: createRandom("worldbook-test", JSON.stringify(config)),
    viewer: { view: (observation) => view(observation, rows) },
    episodeId: (_taskId, e) => `ep-${pad4(e)}`,
    source: "run:test",
  });
}

function ruleFor(rules: Rule[], direction: GridDirection): Rule {
  const rule = rules.find((r) => r.action.type === "move" && r.action.direction === direction);
  if (!rule) throw new Error(`no rule for ${direction}`);
  return rule;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("buildWorldbook on FrozenLake traces", () => {
  it("a deterministic map gives one supported rule per direction with probability 1", async () => {
    const wb = buildWorldbook(await traces({ slippery: false }, OPEN_MAP, 40));
    expect(wb.rules).toHaveLength(4);
    for (const d of DIRS) {
      const rule = ruleFor(wb.rules, d);
      expect(rule.status).toBe("supported");
      expect(rule.stochastic).toBe(false);
      expect(distribution(rule)).toEqual({ [DELTA[d]]: 1 });
      expect(rule.counterexamples).toBe(0);
    }
    const cells = wb.schemas.fields.find((f) => f.path === "cell.*.*");
    expect(cells?.mutable).toBe(false);
    expect(wb.schemas.fields.find((f) => f.path === "agent.row")).toMatchObject({
      mutable: true,
      default: 0,
    });
    expect(wb.invariants.constantWithinEpisode).toContain("cell.*.*");
    expect(wb.invariants.ranges).toContainEqual({ path: "agent.row", min: 0, max: 4 });
  });

  const settings: Array<[string, FrozenLakeConfigInput, [number, number, number]]> = [
    ["symmetric 1/3", { slippery: true }, [1 / 3, 1 / 3, 1 / 3]],
    ["perpendicular (0, 2/3)", { perpendicular: { left: 0, right: 2 / 3 } }, [1 / 3, 0, 2 / 3]],
  ];
  for (const [name, config, [intended, left, right]] of settings) {
    it(`estimates the ${name} slip within 0.03`, async () => {
      const wb = buildWorldbook(await traces(config, OPEN_MAP, 400));
      for (const d of DIRS) {
        const rule = ruleFor(wb.rules, d);
        const p = distribution(rule);
        const [l, r] = SIDES[d];
        expect(Math.abs((p[DELTA[d]] ?? 0) - intended)).toBeLessThanOrEqual(0.03);
        expect(Math.abs((p[DELTA[l]] ?? 0) - left)).toBeLessThanOrEqual(0.03);
        expect(Math.abs((p[DELTA[r]] ?? 0) - right)).toBeLessThanOrEqual(0.03);
        expect(rule.support).toBeGreaterThan(1500);
        expect(rule.outcomes).toHaveLength(left > 0 ? 3 : 2);
        expect(rule.stochastic).toBe(true);
      }
      if (left > 0) {
        // Corners hide two outcomes behind the walls: those states are withheld, not guessed.
        const withheld = wb.evidence.find((e) => e.attribution.status === "withheld");
        expect(withheld?.attribution).toMatchObject({ reason: expect.stringContaining("cannot tell") });
      }
    }, 60_000);
  }

  it("induces when episodes end and pay from a derived lookup field", async () => {
    const rows = ["SFF", "FHF", "FFG"];
    const wb = buildWorldbook(await traces({ slippery: false }, rows, 200), {
      lookups: [{ name: "agent.tile", template: "cell.{agent.row}.{agent.col}" }],
    });
    expect(wb.outcomeRules).toContainEqual(
      expect.objectContaining({
        field: "terminated",
        when: { path: "agent.tile", op: "in", value: ["G", "H"] },
      }),
    );
    expect(wb.outcomeRules).toContainEqual(
      expect.objectContaining({
        field: "reward",
        value: 1,
        when: { path: "agent.tile", op: "eq", value: "G" },
      }),
    );
  });
});

describe("writeWorldbook / readWorldbook", () => {
  it("writes byte-identical files for the same traces and reads them back", async () => {
    const steps = await traces({ slippery: true }, OPEN_MAP, 20);
    const a = mkdtempSync(join(tmpdir(), "wb-a-"));
    const b = mkdtempSync(join(tmpdir(), "wb-b-"));
    dirs.push(a, b);
    writeWorldbook(a, buildWorldbook(steps));
    writeWorldbook(b, buildWorldbook([...steps].reverse()));
    const names = readdirSync(a).sort();
    expect(names).toEqual([
      "contracts.json",
      "evidence.json",
      "invariants.json",
      "manifest.json",
      "notes.json",
      "rules.json",
      "schemas.json",
      "starts.json",
      "tasks.json",
    ]);
    for (const n of names) expect(readFileSync(join(a, n)).equals(readFileSync(join(b, n)))).toBe(true);
    const back = readWorldbook(a);
    expect(back).toEqual(buildWorldbook(steps));
  });

  it("refuses an edited file with worldbook.invalid naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wb-c-"));
    dirs.push(dir);
    writeWorldbook(dir, buildWorldbook(await traces({ slippery: false }, OPEN_MAP, 3)));
    const path = join(dir, "rules.json");
    writeFileSync(path, readFileSync(path, "utf8").replace('"supported"', '"tentative"'));
    expect(() => readWorldbook(dir)).toThrowError(/rules\.json.*differs from the manifest/);
    try {
      readWorldbook(dir);
    } catch (error) {
      expect((error as { code: string }).code).toBe(WORLDBOOK_INVALID);
    }
  });
});
