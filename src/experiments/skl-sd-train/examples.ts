import { InternalError } from "../../core/errors.ts";
import type { Action, HistoryEntry, PolicyContext, Task } from "../../core/index.ts";
import { SHARED_MOVES } from "../../envs/frozenlake/episode.ts";
import { renderGrid } from "../../envs/frozenlake/render.ts";
import type { FrozenLakeSuite } from "../../envs/frozenlake/suite.ts";
import type { SdActionRecord, SdReflectRecord } from "../../export/skl-sd-datasets.ts";
import type { SftExample } from "../../train/sft-records.ts";

/**
 * The SKL-SD records (`runSklSdPipeline`) as SFT examples of an action policy. The acting records
 * (D_base, D_distill) show the grid in their prompt: the example's context is that grid (with the
 * four moves as legal actions and the episode's earlier actions as history, read from the records of
 * the same episode), its target the record's action. A D_reflect record teaches the knowledge writer
 * (its target is the updated knowledge text), which an action policy cannot learn; its model-free
 * projection is the (state, best known action) pair the update's text ends with ("Best known action:
 * right (value …)"), on the grid of the record's map with the player on the record's cell, without
 * history. A reflect record whose text names no best action gives no example.
 */

/** The grid of an acting prompt: the lines after `Map:` up to the knowledge or the question. */
function gridOfPrompt(record: SdActionRecord): string {
  const user = record.messages.find((m) => m.role === "user");
  const text = typeof user?.content === "string" ? user.content : "";
  const m = /^Map:\n([\s\S]*?)\n(?:Knowledge about this state:|Your action:)/.exec(text);
  if (!m?.[1])
    throw new InternalError(
      "experiment.sd_prompt",
      `skl-sd experiment: record ${record.metadata.episodeId} step ${record.metadata.step} has no map in its prompt; the SD acting prompt changed — update examples.ts`,
    );
  return m[1];
}

function moveOf(direction: string): Action {
  const move = SHARED_MOVES.find((a) => a.type === "move" && a.direction === direction);
  if (!move)
    throw new InternalError(
      "experiment.sd_action",
      `skl-sd experiment: "${direction}" is not a FrozenLake move`,
    );
  return move;
}

function contextOf(task: Task, grid: string, history: HistoryEntry[], stepIndex: number): PolicyContext {
  return {
    task,
    observation: { text: grid, instruction: task.instruction, legalActions: [...SHARED_MOVES] },
    history,
    stepIndex,
  };
}

/** D_base / D_distill records as examples of weight `weight` (records of one episode in step order). */
export function actingExamples(
  suite: FrozenLakeSuite,
  records: ReadonlyArray<SdActionRecord>,
  weight: number,
): SftExample[] {
  const histories = new Map<string, HistoryEntry[]>();
  return records.map((record) => {
    const { episodeId, taskId, step, action } = record.metadata;
    const history = histories.get(episodeId) ?? [];
    const target = moveOf(action);
    const context = contextOf(suite.get(taskId), gridOfPrompt(record), [...history], step);
    histories.set(episodeId, [
      ...history,
      { observation: { text: "" }, action: target, raw: JSON.stringify(target) },
    ]);
    return { context, target, weight, taskId };
  });
}

/** The cell `(r,c)` a structural FrozenLake key ends with. */
function cellOfKey(key: string): { row: number; col: number } | undefined {
  const m = /\((\d+),(\d+)\)$/.exec(key);
  return m ? { row: Number(m[1]), col: Number(m[2]) } : undefined;
}

/** D_reflect records projected to (state, best known action) examples of weight `weight`. */
export function reflectExamples(
  suite: FrozenLakeSuite,
  records: ReadonlyArray<SdReflectRecord>,
  weight: number,
): SftExample[] {
  return records.flatMap((record) => {
    const { taskId, stateKey, newKnowledge } = record.metadata;
    const best = /Best known action: (left|down|right|up) /.exec(newKnowledge)?.[1];
    const cell = cellOfKey(stateKey);
    if (!best || !cell) return [];
    const grid = renderGrid(suite.map(taskId), cell);
    return [{ context: contextOf(suite.get(taskId), grid, [], 0), target: moveOf(best), weight, taskId }];
  });
}
