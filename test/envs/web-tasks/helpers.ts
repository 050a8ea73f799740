import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Action, Observation, VerifierResult } from "../../../src/core/index.ts";
import { BUILTIN_TASKS_DIR, type WebEnvironment } from "../../../src/envs/web/index.ts";

export interface Manifest {
  id: string;
  title: string;
  tier: "short" | "long";
  split: "train" | "heldout";
  maxSteps: number;
  successThreshold?: number;
  description: string;
}

/** The manifests of every built-in task folder, sorted by id. */
export function builtinManifests(): Manifest[] {
  return readdirSync(BUILTIN_TASKS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(BUILTIN_TASKS_DIR, d.name, "task.json")))
    .map((d) => JSON.parse(readFileSync(join(BUILTIN_TASKS_DIR, d.name, "task.json"), "utf8")) as Manifest)
    .sort((a, b) => a.id.localeCompare(b.id));
}

export interface OracleRun {
  result: VerifierResult;
  actions: Action[];
  errors: string[];
}

/**
 * Follows the task's own oracle from a fresh reset until the episode ends, the oracle has nothing
 * left, or maxSteps. Action errors are collected (an oracle action should never fail).
 */
export async function runOracle(
  env: WebEnvironment,
  taskId: string,
  seed: number,
  maxSteps: number,
  onObservation?: (o: Observation) => void,
): Promise<OracleRun> {
  const first = await env.reset({ taskId, seed });
  onObservation?.(first);
  return continueOracle(env, maxSteps, [], onObservation);
}

/** `runOracle` from the live episode, `done` the actions already taken; `onObservation` sees each step's. */
export async function continueOracle(
  env: WebEnvironment,
  maxSteps: number,
  done: Action[],
  onObservation?: (o: Observation) => void,
): Promise<OracleRun> {
  const actions = [...done];
  const errors: string[] = [];
  while (actions.length < maxSteps) {
    const a = await env.oracleAction();
    if (!a) break;
    actions.push(a);
    const r = await env.step(a);
    onObservation?.(r.observation);
    if (r.observation.error) errors.push(`${JSON.stringify(a)}: ${r.observation.error.message}`);
    if (r.terminated || r.truncated) break;
  }
  return { result: await env.evaluate(), actions, errors };
}

/** Element ids and lines of an accessibility-tree text (`[12] button "Submit"`). */
export function axElements(axtree: string): Array<{ id: string; line: string }> {
  const out: Array<{ id: string; line: string }> = [];
  for (const line of axtree.split("\n")) {
    const m = /^\s*\[(\d+)\]/.exec(line);
    if (m?.[1]) out.push({ id: m[1], line: line.trim() });
  }
  return out;
}
