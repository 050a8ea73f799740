import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { RolloutGroupsReport } from "../../src/rl/index.ts";
import { json, runMain } from "./run-cli.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-rlweb-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("rl rollouts runs a small group on a short built-in web task", async () => {
  const store = join(dir, "store");
  const r = await runMain([
    "--json",
    "rl",
    "rollouts",
    "--env",
    "web",
    "--suite",
    "builtin",
    "--tasks",
    "click-button",
    "--policy",
    "oracle",
    "--group",
    "2",
    "--t-max",
    "5",
    "--seed",
    "2",
    "--store",
    store,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const { rl } = json<{ summary: { rl: RolloutGroupsReport } }>(r).summary;
  expect(rl.groups).toHaveLength(1);
  const [g] = rl.groups;
  expect(g?.members).toHaveLength(2);
  // The oracle solves it in the same steps every time: all succeed, ties, advantage 0 for both.
  expect(g?.stats.p).toBe(1);
  expect(g?.members.map((m) => m.advantage)).toEqual([0, 0]);
  expect(g?.members[0]?.reward).toBeGreaterThan(1);
}, 240_000);
