import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScheduleFile } from "../../src/noise/index.ts";
import { shareBrowserAcrossFile } from "../web-browser.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-noisecli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ListOut {
  generators: Array<Record<string, unknown>>;
  totals: { generators: number; heldOut: number; byTier: Record<string, number> };
}

shareBrowserAcrossFile();

describe("rehearsal noise", () => {
  it("noise list --json lists the catalog with every field", async () => {
    const r = await runMain(["--json", "noise", "list"]);
    expect(r.code, r.stderr).toBe(0);
    const out = json<ListOut>(r);
    expect(out.generators.length).toBeGreaterThanOrEqual(40);
    expect(out.generators.filter((g) => g.heldOut === true).length).toBeGreaterThanOrEqual(8);
    expect(out.totals.generators).toBe(out.generators.length);
    for (const g of out.generators) {
      expect(Object.keys(g).sort()).toEqual(
        [
          "category",
          "cost",
          "description",
          "heldOut",
          "name",
          "needsTarget",
          "recoveredBy",
          "recovery",
          "repeatable",
          "tier",
        ].sort(),
      );
    }
    const t2 = json<ListOut>(
      await runMain(["--json", "noise", "list", "--tier", "T2", "--split", "heldout"]),
    );
    expect(t2.generators.length).toBeGreaterThan(0);
    expect(t2.generators.every((g) => g.tier === "T2" && g.heldOut === true)).toBe(true);
    const human = await runMain(["noise", "list"]);
    expect(human.stdout).toMatch(/generators \(T1 \d+, T2 \d+, T3 \d+\), \d+ held out/);
    expect((await runMain(["noise", "list", "--tier", "T7"])).code).toBe(2);
  }, 120_000);

  it("noise schedule --span writes a valid file, identical when run twice", async () => {
    const files = [join(dir, "a.json"), join(dir, "b.json")];
    for (const out of files) {
      const r = await runMain([
        "noise",
        "schedule",
        "--tasks",
        "click-button,login-user",
        "--span",
        "3",
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("click-button");
    }
    expect(readFileSync(files[1]!, "utf8")).toBe(readFileSync(files[0]!, "utf8"));
    const file = readScheduleFile(files[0]!);
    expect(file.tasks.map((t) => t.taskId)).toEqual(["click-button", "login-user"]);
    for (const t of file.tasks) {
      expect(t.span).toBe(3);
      expect(t.events).toHaveLength(1);
      expect(t.events[0]!.step).toBeLessThanOrEqual(2);
    }
    const j = await runMain([
      "--json",
      "noise",
      "schedule",
      "--tasks",
      "click-button",
      "--span",
      "3",
      "--out",
      files[0]!,
    ]);
    expect(json<{ kind: string }>(j).kind).toBe("rehearsal.noise-schedule");
    const unknown = await runMain([
      "noise",
      "schedule",
      "--tasks",
      "no-such-task",
      "--span",
      "3",
      "--out",
      files[1]!,
    ]);
    expect(unknown.code).toBe(2);
  }, 120_000);

  it("noise schedule measures spans with the oracle on the web environment", async () => {
    const out = join(dir, "measured.json");
    const r = await runMain([
      "--json",
      "noise",
      "schedule",
      "--env",
      "web",
      "--tasks",
      "click-button,login-user",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const file = readScheduleFile(out);
    expect(file.tasks).toHaveLength(2);
    for (const t of file.tasks) {
      expect(t.span).toBeGreaterThanOrEqual(1);
      expect(t.span).toBeLessThanOrEqual(15);
      expect(t.events).toHaveLength(1);
    }
    expect(json(r)).toEqual(JSON.parse(readFileSync(out, "utf8")));
  }, 240_000);
});
