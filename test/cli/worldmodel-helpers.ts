import { expect } from "vitest";
import type { StateViewer } from "../../src/core/index.ts";
import {
  buildWorldbook,
  importTraces,
  type WorldbookOptionsInput,
  writeWorldbook,
} from "../../src/worldmodel/index.ts";
import { type CliResult, json, runMain, withStore } from "./run-cli.ts";

/**
 * Records a real run (`rehearsal --json run ...runArgs --store STORE`, which must exit 0), then writes
 * the worldbook built from its traces (states from `viewer`, tasks from the run) to `book`.
 */
export async function recordRunWorldbook(args: {
  runArgs: string[];
  store: string;
  book: string;
  viewer: StateViewer;
  options?: WorldbookOptionsInput;
}): Promise<void> {
  const r = await runMain(["--json", "run", ...args.runArgs, "--store", args.store]);
  expect(r.code, r.stderr).toBe(0);
  const runId = json<{ runId: string }>(r).runId;
  withStore(args.store, (s) => {
    const { steps } = importTraces(s, [runId], { viewer: args.viewer });
    writeWorldbook(args.book, buildWorldbook(steps, args.options ?? {}, { tasks: s.listTasks(runId) }));
  });
}

/**
 * `rehearsal --json COMMAND... --env worldmodel:BOOK --tasks TASKS --policy POLICY ...extra --store STORE`,
 * which must exit 0.
 */
export async function runOnWorldbook(
  command: string[],
  args: { book: string; store: string; tasks: string; policy: string; extra?: string[] },
): Promise<CliResult> {
  const r = await runMain([
    "--json",
    ...command,
    "--env",
    `worldmodel:${args.book}`,
    "--tasks",
    args.tasks,
    "--policy",
    args.policy,
    ...(args.extra ?? []),
    "--store",
    args.store,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r;
}
