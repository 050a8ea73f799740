import { UserError } from "../../core/errors.ts";
import { createRandom } from "../../core/random.ts";
import { type Task, TaskSchema, type TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import type { FsView } from "./state-view.ts";
import { LONG_TASKS } from "./tasks/long.ts";
import { SHORT_FILE_TASKS } from "./tasks/short-files.ts";
import { SHORT_TEXT_TASKS } from "./tasks/short-text.ts";
import type { TaskWorld, TerminalTaskSpec } from "./tasks/spec.ts";

export const TERMINAL_FAMILY = "terminal";
export const TERMINAL_VERIFIER_KIND = "terminal-final-fs";
export const TERMINAL_ORACLE_KIND = "terminal-script";

/** Every built-in terminal task, short tier first. */
export const TERMINAL_TASK_SPECS: ReadonlyArray<TerminalTaskSpec> = [
  ...SHORT_FILE_TASKS,
  ...SHORT_TEXT_TASKS,
  ...LONG_TASKS,
];

const SPECS = new Map(TERMINAL_TASK_SPECS.map((s) => [s.id, s]));

function taskOf(spec: TerminalTaskSpec): Task {
  return TaskSchema.parse({
    id: spec.id,
    instruction: `${spec.summary} (The exact instruction, seeded, is in each observation.)`,
    family: TERMINAL_FAMILY,
    seed: 0,
    split: spec.split,
    verifier: { kind: TERMINAL_VERIFIER_KIND },
    oracle: { kind: TERMINAL_ORACLE_KIND },
    tier: spec.tier,
    maxSteps: spec.maxSteps,
    tags: [TERMINAL_FAMILY, spec.tier, ...spec.tags],
  });
}

/** The spec behind a terminal task id; throws a UserError naming the known ids. */
export function terminalTaskSpec(id: string): TerminalTaskSpec {
  const spec = SPECS.get(id);
  if (spec) return spec;
  throw new UserError(
    "task.unknown",
    `Unknown terminal task "${id}". Known tasks: ${[...SPECS.keys()].join(", ")}.`,
  );
}

/** The seeded world of a task: the same (task, seed) always gives the same files and instruction. */
export function buildTerminalWorld(spec: TerminalTaskSpec, seed: number): TaskWorld {
  return spec.build(createRandom(TERMINAL_FAMILY, spec.id, seed, "world"));
}

/** Scores the final state: failed gates give 0; otherwise the fraction of checks passed. */
export function verifyTerminal(
  spec: TerminalTaskSpec,
  world: TaskWorld,
  view: FsView,
  answer: string | undefined,
): VerifierResult {
  const checks = spec.check(view, world, answer);
  const metrics = Object.fromEntries(checks.map((c) => [c.name, c.ok ? 1 : 0]));
  const failed = checks.filter((c) => !c.ok);
  const gate = failed.find((c) => c.gate);
  const reward = gate ? 0 : (checks.length - failed.length) / checks.length;
  const reason =
    failed.length === 0
      ? `all ${checks.length} checks passed`
      : `${gate ? `gate ${gate.name} failed; ` : ""}failed checks: ${failed.map((c) => c.name).join(", ")}`;
  return { reward, success: failed.length === 0, reason, metrics };
}

/** The built-in terminal suite: seeded shell tasks in tiers short and long (some held out). */
export function createTerminalSuite(): TaskSuite {
  const tasks = TERMINAL_TASK_SPECS.map(taskOf);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return {
    name: "terminal-builtin",
    family: TERMINAL_FAMILY,
    list: () => tasks,
    get(id) {
      const task = byId.get(id);
      if (task) return task;
      terminalTaskSpec(id);
      throw new UserError("task.unknown", `Unknown terminal task "${id}".`);
    },
  };
}
