import { stableSeed } from "../../core/hash.ts";
import { createRandom } from "../../core/random.ts";
import type { Runtime } from "../../core/runtime.ts";
import type { Task } from "../../core/task.ts";
import {
  createFrozenLakeEnvironment,
  type FrozenLakeEnvironment,
} from "../../envs/frozenlake/environment.ts";
import { renderGrid } from "../../envs/frozenlake/render.ts";
import { createFrozenLakeSuite, type FrozenLakeSuite } from "../../envs/frozenlake/suite.ts";
import {
  actionRecord,
  actionTarget,
  reflectRecord,
  type SdActionRecord,
  type SdReflectRecord,
} from "../../export/skl-sd-datasets.ts";
import {
  type SD_FILES,
  type SklSdIterationStats,
  type SklSdManifest,
  writeSdFiles,
} from "../../export/skl-sd-manifest.ts";
import { ExperienceBuffer } from "../../knowledge/experience-buffer.ts";
import { createKnowledgeTable, type KnowledgeTable } from "../../knowledge/knowledge-table.ts";
import {
  type EpisodeRecorder,
  memoryRecorder,
  type PlayedEpisode,
  type PlayedStep,
  playEpisode,
  unlessStopped,
} from "../../knowledge/play-episode.ts";
import {
  bootstrapEpisode,
  distinctStates,
  type SweepContext,
  sampleStates,
} from "../../knowledge/sd/bootstrap.ts";
import { createSdPolicy } from "../../knowledge/sd/policy.ts";
import type { KnowledgeWriter } from "../../knowledge/writer.ts";
import { createSklWriter } from "../writers.ts";
import { cellOf, describeFrozenLakeKey, FROZENLAKE_TERMS } from "./local-key.ts";
import {
  manifestOptions,
  parseSklSdOptions,
  type SklSdOptions,
  type SklSdOptionsInput,
} from "./sd-options.ts";
import { actingMessages } from "./sd-prompts.ts";

export interface SklSdDeps {
  /** A writer to use instead of the one `options.writer` names (e.g. an LLM writer on a test server). */
  writer?: KnowledgeWriter;
  /** Runtime of the LLM client built from `options.llm` (default: a deterministic one from the seed). */
  runtime?: Runtime;
  /** The run its episodes are recorded in (default: a fresh in-memory store). */
  recorder?: EpisodeRecorder;
}

export interface SklSdResult {
  manifest: SklSdManifest;
  /** Absolute or relative paths as given by `outDir`. */
  paths: Record<keyof typeof SD_FILES, string>;
  records: { base: SdActionRecord[]; distill: SdActionRecord[]; reflect: SdReflectRecord[] };
  table: KnowledgeTable;
  /** True when a stop request ended the pipeline early: the files hold the completed iterations. */
  interrupted: boolean;
}

function writerFor(options: SklSdOptions, deps: SklSdDeps): KnowledgeWriter {
  if (deps.writer) return deps.writer;
  const statistical = {
    gamma: options.gamma,
    deathPenalty: options.deathPenalty,
    describeState: describeFrozenLakeKey,
    terms: FROZENLAKE_TERMS,
  };
  return createSklWriter("SKL-SD options", options, statistical, deps.runtime);
}

interface Setup {
  options: SklSdOptions;
  env: FrozenLakeEnvironment;
  suite: FrozenLakeSuite;
  table: KnowledgeTable;
  recorder: EpisodeRecorder;
  /** Episodes played so far (their position in the run). */
  played: number;
}

function gridOf(setup: Setup, taskId: string, step: PlayedStep): string {
  const cell = cellOf(step.observation.data);
  return cell ? renderGrid(setup.suite.map(taskId), cell) : step.state;
}

async function play(setup: Setup, task: Task, id: string, iteration: number): Promise<PlayedEpisode> {
  const { options } = setup;
  return playEpisode({
    id,
    env: setup.env,
    policy: createSdPolicy(setup.table, options.temperature, options.optimisticPrior),
    task,
    // The retry replays the base rollout's slip stream: only the knowledge differs.
    seed: stableSeed(String(options.seed), "sd-env", task.id, iteration),
    episodeIndex: setup.played++,
    recorder: setup.recorder,
    maxSteps: options.horizon,
    temperature: options.temperature,
    random: (step) => createRandom(String(options.seed), "sd-policy", id, step),
  });
}

/** D_base / D_distill records of an episode; `showKnowledge` reads the table as it is now. */
function actingRecords(
  setup: Setup,
  episode: PlayedEpisode,
  dataset: "base" | "distill",
  iteration: number,
  showKnowledge: boolean,
): SdActionRecord[] {
  return episode.steps.map((step, index) => {
    const knowledge = showKnowledge ? (setup.table.read(step.state)?.text ?? "(none yet)") : undefined;
    return actionRecord(
      actingMessages(gridOf(setup, episode.taskId, step), knowledge),
      actionTarget(step.action),
      {
        dataset,
        iteration,
        taskId: episode.taskId,
        episodeId: episode.id,
        step: index,
        stateKey: step.state,
        action: step.actionLabel,
        episodeReturn: episode.return,
        knowledgeShown: showKnowledge,
      },
    );
  });
}

/**
 * SKL-SD data generation on FrozenLake training maps. Per iteration: base rollouts with the current
 * knowledge (successes → D_base; all → the experience buffer); on each failed episode, the backward
 * bootstrapping sweep (optionally on a uniform sample of states), then a retry of the task with the
 * refined knowledge pre-filled; a successful retry → D_distill (prompts without the pre-filled
 * knowledge) and the sweep's updates → D_reflect. Writes three TRL conversational JSONL files and a
 * manifest (λ1, λ2, counts, options). Deterministic: the same options give byte-identical files. When the
 * recorder's signal aborts, the completed iterations are written (the manifest says `interrupted: true`).
 */
export async function runSklSdPipeline(input: SklSdOptionsInput, deps: SklSdDeps = {}): Promise<SklSdResult> {
  const options = parseSklSdOptions(input);
  const writer = writerFor(options, deps);
  const suite = createFrozenLakeSuite({
    name: "skl-sd",
    standard: [],
    randomMaps: { size: options.mapSize, count: options.maps, heldoutCount: 0 },
  });
  const env = createFrozenLakeEnvironment(
    {
      horizon: options.horizon,
      slippery: options.slip !== "none",
      ...(options.slip === "asymmetric" ? { perpendicular: { left: 0, right: 2 / 3 } } : {}),
    },
    { suite },
  );
  const table = createKnowledgeTable();
  const buffer = new ExperienceBuffer();
  const recorder = deps.recorder ?? memoryRecorder(String(options.seed), "skl-sd");
  const setup: Setup = { options, env, suite, table, recorder, played: 0 };
  const sweep: SweepContext = {
    table,
    buffer,
    writer,
    budget: options,
    describeState: describeFrozenLakeKey,
  };
  const tasks = suite.list();
  const records: SklSdResult["records"] = { base: [], distill: [], reflect: [] };
  const iterations: SklSdIterationStats[] = [];
  let interrupted = false;
  try {
    for (let iteration = 0; iteration < options.iterations; iteration++) {
      // An iteration's records are kept only when it completes (a stop request drops the one in flight).
      const staged: SklSdResult["records"] = { base: [], distill: [], reflect: [] };
      const stats = await unlessStopped(recorder, async () => {
        const base: PlayedEpisode[] = [];
        for (const task of tasks)
          base.push(await play(setup, task, `sd:base:${task.id}:i${iteration}`, iteration));
        for (const e of base) {
          if (e.success) staged.base.push(...actingRecords(setup, e, "base", iteration, true));
          const transitions = e.steps.map(({ observation: _o, nextObservation: _n, ...t }) => t);
          buffer.add({ id: e.id, taskId: e.taskId, epoch: iteration, transitions });
        }
        const failed = base.filter((e) => !e.success && e.steps.length > 0);
        const states = distinctStates(failed);
        const sample = sampleStates(
          states,
          options.sampleFraction,
          createRandom(String(options.seed), "sd-sample", iteration),
        );
        const stats: SklSdIterationStats = {
          iteration,
          baseEpisodes: base.length,
          baseSuccesses: base.length - base.filter((e) => !e.success).length,
          failed: failed.length,
          statesConsidered: states.length,
          statesSampled: sample.size,
          updates: 0,
          retries: 0,
          retrySuccesses: 0,
        };
        for (const episode of failed) {
          const updates = await bootstrapEpisode(sweep, episode, iteration, sample);
          stats.updates += updates.length;
          const task = suite.get(episode.taskId);
          const retry = await play(setup, task, `sd:retry:${task.id}:i${iteration}`, iteration);
          stats.retries += 1;
          if (!retry.success) continue;
          stats.retrySuccesses += 1;
          staged.distill.push(...actingRecords(setup, retry, "distill", iteration, false));
          for (const u of updates) {
            staged.reflect.push(
              reflectRecord(u.prompt, {
                dataset: "reflect",
                iteration,
                taskId: episode.taskId,
                episodeId: episode.id,
                stateKey: u.key,
                mode: u.mode,
                writer: u.writer,
                oldKnowledge: u.oldKnowledge,
                newKnowledge: u.newKnowledge,
              }),
            );
          }
        }
        return stats;
      });
      if (!stats) {
        interrupted = true;
        break;
      }
      iterations.push(stats);
      records.base.push(...staged.base);
      records.distill.push(...staged.distill);
      records.reflect.push(...staged.reflect);
    }
  } finally {
    await env.close();
  }
  const output = { outDir: options.outDir, lambda1: options.lambda1, lambda2: options.lambda2 };
  const { manifest, paths } = await writeSdFiles({ ...output, options: manifestOptions(options) }, records, {
    iterations,
    writer: writer.name,
    taskIds: tasks.map((t) => t.id),
    ...(interrupted ? { interrupted } : {}),
  });
  return { manifest, paths, records, table, interrupted };
}
