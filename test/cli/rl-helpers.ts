import { expect } from "vitest";
import { type CliResult, json, runMain } from "./run-cli.ts";

/** The id of a plain (not rl) one-episode FrozenLake run in `store`: what rl commands must refuse. */
export async function plainRun(store: string): Promise<string> {
  const r = await runMain([
    "--json",
    "run",
    "--env",
    "frozenlake",
    "--tasks",
    "4x4",
    "--episodes",
    "1",
    "--store",
    store,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return json<{ runId: string }>(r).runId;
}

/** What {@link lakeRolloutGroups} plays: groups of `group` on the FrozenLake `tasks` (comma list). */
export interface LakeRolloutGroups {
  store: string;
  tasks: string;
  group: number;
  /** The `--policy`; random unless told. */
  policy?: string;
  /** More flags, before `--store`. */
  extra?: string[];
  /** Environment variables for the call (e.g. the llm endpoint). */
  env?: Record<string, string>;
}

/** `rehearsal --json rl rollouts --env frozenlake --tasks T --policy P --group G ...extra --store S`. */
export function lakeRolloutGroups(o: LakeRolloutGroups): Promise<CliResult> {
  const args = ["--json", "rl", "rollouts", "--env", "frozenlake", "--tasks", o.tasks];
  args.push("--policy", o.policy ?? "random", "--group", String(o.group), ...(o.extra ?? []));
  return runMain([...args, "--store", o.store], o.env ? { env: o.env } : {});
}
