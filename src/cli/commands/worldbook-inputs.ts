import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { StateViewer, Task } from "../../core/index.ts";
import type { SplitFractions } from "../../worldmodel/splits.ts";
import type { TraceStep } from "../../worldmodel/trace.ts";
import { openCliStore } from "../context.ts";
import { listOption } from "../options.ts";

/** Where `worldbook build` takes its traces from: runs of a store, JSONL trace files, or both. */
export interface TraceInputFlags {
  runs?: string[] | undefined;
  store: string;
  traces?: string[] | undefined;
}

/** Adds `--runs`, `--store` and `--traces`, the inputs `loadTraceInputs` reads, with the command's help texts. */
export function addTraceInputOptions(command: Command, help: { runs: string; traces: string }): Command {
  return command
    .option("--runs <ids>", help.runs, listOption)
    .option("--store <dir>", "run store directory", ".rehearsal")
    .option("--traces <files...>", help.traces);
}

async function viewerOf(family: string, where: string): Promise<StateViewer> {
  const { stateViewerFamilies, stateViewerFor } = await import("../../envs/state-viewers.ts");
  const viewer = stateViewerFor(family);
  if (viewer) return viewer;
  throw new UserError(
    "worldbook.no_state_viewer",
    `worldbook build: ${where} is of family "${family}", which has no state viewer (the families with one: ${stateViewerFamilies().join(", ")}). Fix: record traces of one of those families, or write JSONL traces that carry state and nextState (docs/traces.md)`,
    { details: { family } },
  );
}

/** The steps of every run, each run imported with the state viewer of its tasks' family. */
async function fromRuns(runIds: ReadonlyArray<string>, storeDir: string) {
  const { importTraces } = await import("../../worldmodel/trace-import.ts");
  const store = await openCliStore(storeDir);
  try {
    const steps: TraceStep[] = [];
    const tasks: Task[] = [];
    const seen = new Set<string>();
    for (const runId of runIds) {
      if (seen.has(runId) || !store.getRun(runId))
        throw new UserError(
          seen.has(runId) ? "worldbook.duplicate_run" : "worldbook.unknown_run",
          seen.has(runId)
            ? `worldbook build: run ${runId} is listed twice in --runs. Fix: name each run once`
            : `worldbook build: no run ${runId} in the store ${storeDir}. Fix: list the runs with 'rehearsal runs list --store ${storeDir}'`,
          { details: { runId, store: storeDir } },
        );
      seen.add(runId);
      const runTasks = store.listTasks(runId);
      const families = [...new Set(runTasks.map((t) => t.family))].sort();
      if (families.length !== 1)
        throw new UserError(
          "worldbook.run_families",
          `worldbook build: run ${runId} recorded ${families.length === 0 ? "no tasks" : `tasks of several families (${families.join(", ")})`}, so no one state viewer reads it. Fix: build from runs of one family that recorded their tasks`,
          { details: { runId, families } },
        );
      const viewer = await viewerOf(families[0] as string, `run ${runId}`);
      for (const step of importTraces(store, [runId], { viewer }).steps) steps.push(step);
      tasks.push(...runTasks);
    }
    return { steps, tasks };
  } finally {
    store.close();
  }
}

/** The steps of JSONL trace files; a step without state is viewed with its family's state viewer. */
async function fromFiles(paths: ReadonlyArray<string>): Promise<TraceStep[]> {
  const { readTraceFile } = await import("../../worldmodel/trace-file.ts");
  const steps: TraceStep[] = [];
  for (const path of paths) {
    for (const step of readTraceFile(path)) {
      if (step.state !== undefined && step.nextState !== undefined) {
        steps.push(step);
        continue;
      }
      const viewer = await viewerOf(step.family, `trace file ${path} (${step.source})`);
      steps.push({
        ...step,
        state: step.state ?? viewer.view(step.observation),
        nextState: step.nextState ?? viewer.view(step.nextObservation),
      });
    }
  }
  return steps;
}

/** The traces `--runs` and `--traces` name, with the tasks the runs recorded. */
export async function loadTraceInputs(
  flags: TraceInputFlags,
): Promise<{ steps: TraceStep[]; tasks: Task[] }> {
  if (!flags.runs?.length && !flags.traces?.length)
    throw new UserError(
      "worldbook.no_traces",
      "worldbook build: no traces given. Fix: pass --runs ID,... (with --store) or --traces FILE.jsonl ...",
    );
  const runs = flags.runs?.length ? await fromRuns(flags.runs, flags.store) : { steps: [], tasks: [] };
  const files = flags.traces?.length ? await fromFiles(flags.traces) : [];
  return { steps: [...runs.steps, ...files], tasks: runs.tasks };
}

/** `--split build,validation,test` as fractions: three numbers ≥ 0 that sum to 1, build > 0. */
export async function parseSplitFlag(value: string): Promise<SplitFractions> {
  const { SplitFractionsSchema } = await import("../../worldmodel/splits.ts");
  const parts = value.split(",").map((s) => Number(s.trim()));
  const parsed =
    parts.length === 3 && parts.every(Number.isFinite)
      ? SplitFractionsSchema.safeParse({ build: parts[0], validation: parts[1], test: parts[2] })
      : undefined;
  if (parsed?.success) return parsed.data;
  throw new UserError(
    "worldbook.bad_split",
    `worldbook build: --split "${value}" is not three fractions build,validation,test (each ≥ 0, build > 0, summing to 1). Fix: e.g. --split 0.7,0.15,0.15`,
    { details: { split: value } },
  );
}
