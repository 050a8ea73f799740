import type { Command } from "commander";
import { UserError } from "../core/errors.ts";
import type { RunConfig } from "../runner/config.ts";
import { listOption } from "./options.ts";

/** The flags every config-driven command shares (the config file fills what they leave out). */
export interface ConfigFlags {
  config?: string;
  env?: string;
  suite?: string;
  tasksDir?: string;
  tasksRoot?: string;
  tasks?: string[] | "all";
  policy?: string;
  seed?: string;
  store?: string;
}

/** Adds the shared flags; `without` leaves some out (a command that has its own or none). */
export function addConfigOptions(
  command: Command,
  without: ReadonlyArray<"tasks" | "policy" | "store"> = [],
): Command {
  command
    .option("-c, --config <file>", "YAML or JSON config file (flags override it)")
    .option("--env <name>", "environment: frozenlake | web | chess | terminal | worldmodel:DIR")
    .option("--suite <name>", "task suite of the environment (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages as the suite (web)")
    .option(
      "--tasks-root <dir>",
      "the folder served for --tasks-dir (default: its parent beside core/, common/)",
    );
  if (!without.includes("tasks"))
    command.option("--tasks <ids>", "comma-separated task ids, or all", listOption);
  if (!without.includes("policy"))
    command.option(
      "--policy <name>",
      "random | scripted | oracle | heuristic | heuristic-norecovery | llm | template | tabular:FILE | linear:FILE",
    );
  command.option("--seed <seed>", "root seed (episode seeds are stable hashes of it)");
  if (!without.includes("store")) command.option("--store <dir>", "run store directory (default .rehearsal)");
  return command;
}

export interface ConfigDefaults {
  /** The environment when neither a flag nor the file names one. */
  env?: string;
  /** Without a policy flag or file entry: heuristic on the web, random elsewhere. */
  policyByEnv?: boolean;
  /** The flag of an `extra` field whose name differs from it (episodes → --rollouts), for messages. */
  flagNames?: Readonly<Record<string, string>>;
}

/** The validated run config of the shared flags, the config file and the command's own `extra` fields. */
export async function configFromFlags(
  flags: ConfigFlags,
  extra: Record<string, unknown> = {},
  defaults: ConfigDefaults = {},
): Promise<RunConfig> {
  // The config schema (zod, yaml) loads when a command runs, not for `--help`.
  const { defaultPolicyFor, readConfigFile, resolveRunConfig } = await import("../runner/config.ts");
  const fileOptions = flags.config ? readConfigFile(flags.config) : {};
  const env = flags.env ?? (fileOptions.env === undefined ? defaults.env : undefined);
  const envName = env ?? fileOptions.env;
  const policyDefault =
    defaults.policyByEnv && fileOptions.policy === undefined ? defaultPolicyFor(envName) : undefined;
  return resolveRunConfig(
    fileOptions,
    {
      env,
      suite: flags.suite,
      tasksDir: flags.tasksDir,
      ...(flags.tasksRoot === undefined ? {} : { envOptions: withTasksRoot(fileOptions, flags.tasksRoot) }),
      tasks: flags.tasks,
      policy: flags.policy ?? policyDefault,
      seed: flags.seed,
      store: flags.store,
      ...extra,
    },
    flags.config ?? "options",
    defaults.flagNames,
  );
}

/** The file's envOptions with `--tasks-root` set (the web environment's `tasksRoot`). */
function withTasksRoot(fileOptions: Record<string, unknown>, tasksRoot: string): Record<string, unknown> {
  const envOptions = fileOptions.envOptions;
  return { ...(envOptions && typeof envOptions === "object" ? envOptions : {}), tasksRoot };
}

/** `--resume` continues a run with its stored config: any flag that would change it is an error. */
export function rejectResumeConflicts(flags: Record<string, unknown>, allowed: ReadonlyArray<string>): void {
  const keep = new Set(["resume", "store", ...allowed]);
  const given = Object.keys(flags).filter((k) => !keep.has(k) && flags[k] !== undefined);
  if (given.length === 0) return;
  const names = given.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  throw new UserError(
    "cli.resume_conflict",
    `--resume continues run ${String(flags.resume)} with its stored config, so ${names.join(", ")} would be ignored; drop ${names.length > 1 ? "them" : "it"} or start a new run`,
  );
}
