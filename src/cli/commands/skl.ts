import { join } from "node:path";
import { type Command, Option } from "commander";
import type { Runtime } from "../../core/index.ts";
import {
  type ExperimentRunResult,
  type ExperimentRunSpec,
  withExperimentRun,
} from "../../experiments/index.ts";
import {
  createJsonFilePersistence,
  createSqlitePersistence,
  type EpisodeRecorder,
  type KnowledgeTable,
  knowledgeFilePathFor,
  tableEntries,
} from "../../knowledge/index.ts";
import { llmConfigFromEnv } from "../../llm/index.ts";
import { resumeHint } from "../../runner/index.ts";
import { type CliContext, withRunner } from "../context.ts";
import { intOption } from "../options.ts";
import { registerSklChess } from "./skl-chess.ts";
import { registerSklFrozenLake } from "./skl-frozenlake.ts";
import { registerSklSd } from "./skl-sd.ts";

/** `rehearsal skl frozenlake | chess | sd`: the stateful-knowledge experiments, each one run of the store. */
export function registerSkl(program: Command, ctx: CliContext): void {
  const skl = program.command("skl").description("stateful knowledge (SKL) experiments");
  registerSklFrozenLake(skl, ctx);
  registerSklChess(skl, ctx);
  registerSklSd(skl, ctx);
}

/** Each SKL subcommand's description and default output directory. */
const SKL_COMMANDS = {
  frozenlake: {
    description:
      "no reflection vs trajectory reflection vs stateful (root-only, bootstrapping) on train and held-out maps",
    outDir: "rehearsal-skl",
  },
  chess: {
    description:
      "SKL-RL on chess puzzles: simulate N branches of H moves from each state, write z_hat, act; per expert rate",
    outDir: "rehearsal-skl-chess",
  },
  sd: {
    description:
      "SKL-SD on FrozenLake: D_base, D_distill and D_reflect as TRL JSONL, with λ1 and λ2 in a manifest",
    outDir: "rehearsal-skl-sd",
  },
} as const;

/** An SKL subcommand with the options every one has: `--seed`, `--out-dir`, `--store`. */
export function sklCommand(skl: Command, name: keyof typeof SKL_COMMANDS): Command {
  const spec = SKL_COMMANDS[name];
  return skl
    .command(name)
    .description(spec.description)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the experiment's files go", spec.outDir)
    .option(
      "--store <dir>",
      "run store: the experiment is recorded there as a run of kind skl",
      ".rehearsal",
    );
}

/** Adds `--writer` (statistical | llm). */
export function writerOption(command: Command): Command {
  return command.option(
    "--writer <name>",
    "knowledge writer: statistical | llm (REHEARSAL_LLM_* variables)",
    "statistical",
  );
}

/** The writer flags every SKL command shares; `llm` reads the REHEARSAL_LLM_* variables. */
export function writerOptions(writer: string): {
  writer: "statistical" | "llm";
  llm?: Record<string, unknown>;
} {
  const name = writer as "statistical";
  return writer === "llm" ? { writer: name, llm: llmConfigFromEnv(process.env) } : { writer: name };
}

/** Adds `--knowledge` (json | sqlite): where the experiment's knowledge tables are kept. */
export function knowledgeOption(command: Command, json: string): Command {
  return command.addOption(
    new Option(
      "--knowledge <where>",
      `where the knowledge tables are kept: json (${json}) | sqlite (the store's database, table <run id>/<name>)`,
    )
      .choices(["json", "sqlite"])
      .default("json"),
  );
}

/** Where the knowledge tables of a run went: per table name, its file (json) or its table (sqlite). */
export interface SavedKnowledge {
  storage: "json" | "sqlite";
  /** The store's database, for `sqlite`. */
  database?: string;
  tables: Record<string, string>;
}

/**
 * Saves `tables` (name → table) of run `runId` with `--knowledge`: `sqlite` into the store's database
 * as `<runId>/<name>`; `json` as `<store>/<jsonPrefix>-<name>.knowledge.json`, or nowhere without a
 * prefix (the experiment already wrote its own files).
 */
export async function saveKnowledge(
  flags: { store: string; knowledge: string },
  runId: string,
  tables: ReadonlyArray<readonly [string, KnowledgeTable]>,
  jsonPrefix?: string,
): Promise<SavedKnowledge> {
  const saved: SavedKnowledge = { storage: flags.knowledge === "sqlite" ? "sqlite" : "json", tables: {} };
  if (saved.storage === "sqlite") saved.database = join(flags.store, "rehearsal.db");
  for (const [name, table] of tables) {
    if (saved.storage === "sqlite") {
      saved.tables[name] = `${runId}/${name}`;
      await createSqlitePersistence({ dir: flags.store, name: saved.tables[name] }).save(tableEntries(table));
    } else if (jsonPrefix !== undefined) {
      saved.tables[name] = knowledgeFilePathFor(join(flags.store, `${jsonPrefix}-${name}`));
      await createJsonFilePersistence(saved.tables[name]).save(tableEntries(table));
    }
  }
  return saved;
}

/** `--seed` as the integer seed and `--out-dir` of the experiments that take them so (chess, sd). */
export function seedAndOutDir(flags: { seed: string; outDir: string }): { seed: number; outDir: string } {
  return { seed: intOption(flags.seed), outDir: flags.outDir };
}

/**
 * Runs `experiment(options, deps)` as a run of kind `skl` in the store `flags.store` (config: the
 * options without the LLM config, which may carry an API key), with the CLI runtime (real clock for
 * retry waits, the CLI logger) passed to the experiment; the store is closed afterwards. SIGINT/SIGTERM
 * stop the experiment between units of work (the episode in flight is recorded `aborted`): what
 * completed is written, the run is marked `interrupted`, a warning says that SKL runs cannot be resumed,
 * and `main` exits with 130/143.
 */
export async function runSklExperiment<O extends Record<string, unknown>, T>(
  ctx: CliContext,
  flags: { store: string; seed: string },
  name: string,
  options: O,
  experiment: (options: O, deps: { recorder: EpisodeRecorder; runtime: Runtime }) => Promise<T>,
  summary: (result: T) => Record<string, unknown>,
): Promise<ExperimentRunResult<T>> {
  const spec: ExperimentRunSpec = {
    kind: "skl",
    seed: flags.seed,
    config: { experiment: name, ...options, llm: undefined },
  };
  const run = await withRunner(ctx, flags.store, flags.seed, ({ runtime, store, signals }) =>
    withExperimentRun(
      { store, runtime, ...(signals ? { signals } : {}) },
      spec,
      (recorder) => experiment(options, { recorder, runtime }),
      summary,
    ),
  );
  if (run.status === "interrupted") {
    const hint = resumeHint({ kind: "skl", id: run.runId }, flags.store);
    ctx.out().warn(`run ${run.runId} interrupted; skl runs cannot be resumed (no --resume): ${hint}`);
  }
  return run;
}
