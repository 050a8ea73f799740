import { createRequire } from "node:module";
import { resolve } from "node:path";
import type * as Yaml from "yaml";
import { z } from "zod";
import { formatIssues, readTextFile, UserError } from "../core/index.ts";
import type { RunRecord } from "../store/index.ts";
import { worldbookFamilyHint, worldbookIdentity } from "../worldmodel/environment/worldbook-identity.ts";

/** The run configuration (file and flags). Flags override the file. */
export const RunConfigSchema = z
  .object({
    env: z.enum(["frozenlake", "web", "chess", "terminal", "worldmodel"]).default("frozenlake"),
    /**
     * The worldbook a `worldmodel` environment simulates (`--env worldmodel:DIR`): its absolute
     * directory, and once resolved the sha256 of its manifest and its family, so a run says which book
     * it used (a config file may give the directory alone).
     */
    worldbook: z
      .union([
        z
          .string()
          .min(1)
          .transform((dir): { dir: string; hash?: string; family?: string } => ({ dir })),
        z
          .object({ dir: z.string().min(1), hash: z.string().optional(), family: z.string().optional() })
          .strict(),
      ])
      .optional(),
    /** Options passed to the environment factory (validated by the environment). */
    envOptions: z.record(z.string(), z.unknown()).default({}),
    suite: z.string().default("builtin"),
    tasksDir: z.string().optional(),
    /** Task ids, or "all". */
    tasks: z.union([z.literal("all"), z.array(z.string().min(1)).min(1)]).default("all"),
    /** A model-free policy by name, or a trained one by checkpoint: `tabular:FILE` / `linear:FILE`. */
    policy: z
      .union(
        [
          z.enum(["random", "scripted", "oracle", "heuristic", "heuristic-norecovery", "llm", "template"]),
          z.templateLiteral([z.enum(["tabular", "linear"]), ":", z.string().min(1)]),
        ],
        {
          error:
            "expected one of random, scripted, oracle, heuristic, heuristic-norecovery, llm, template, tabular:FILE, linear:FILE",
        },
      )
      .default("random"),
    /** Actions for the scripted policy. */
    script: z.array(z.unknown()).optional(),
    llm: z.record(z.string(), z.unknown()).optional(),
    episodes: z.number().int().positive().max(1_000_000).default(10),
    seed: z.union([z.string(), z.number()]).transform(String).default("0"),
    temperature: z.number().min(0).max(5).default(1),
    maxSteps: z.number().int().positive().optional(),
    store: z.string().default(".rehearsal"),
    /** ENVS search parameters (validated by the search: see SearchConfigSchema). */
    search: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** "episodes: expected number, received string" with the path: names the field to fix. */
export function formatZodIssues(error: z.ZodError, root: string): string {
  return formatIssues(error.issues, { root });
}

/** The YAML parser, loaded on the first YAML config file (commands run on flags alone never load it). */
function parseYaml(text: string): unknown {
  return (createRequire(import.meta.url)("yaml") as typeof Yaml).parse(text);
}

/** Reads a YAML or JSON config file; every problem is a UserError naming the file and the field. */
export function readConfigFile(path: string): Record<string, unknown> {
  const text = readTextFile(
    path,
    (e) =>
      new UserError("config.unreadable", `cannot read config file ${path}: ${e.message}; check the path`, {
        cause: e,
      }),
  );
  let data: unknown;
  try {
    data = path.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new UserError(
      "config.syntax",
      `config file ${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new UserError(
      "config.not_object",
      `config file ${path} must hold a mapping of options (e.g. "episodes: 10")`,
    );
  }
  return data as Record<string, unknown>;
}

/**
 * Validates file options merged with flags (flags win). A bad value that came from a flag is named by
 * the flag (`--max-steps: ...`; `flagNames` maps a field to its flag where they differ, e.g.
 * episodes → --rollouts), one from the file by its path in `source`.
 */
export function resolveRunConfig(
  fileOptions: Record<string, unknown>,
  flags: Record<string, unknown>,
  source = "config",
  flagNames: Readonly<Record<string, string>> = {},
): RunConfig {
  const merged: Record<string, unknown> = { ...fileOptions };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) merged[k] = v;
  splitWorldmodelEnv(merged);
  const r = RunConfigSchema.safeParse(merged);
  if (!r.success) {
    const flagOf = (key: string) =>
      flags[key] === undefined
        ? undefined
        : (flagNames[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    const message = r.error.issues
      .map((i) => {
        const flag = flagOf(String(i.path[0]));
        return flag ? `${flag}: ${i.message}` : formatIssues([i], { root: source });
      })
      .join("; ");
    throw new UserError("config.invalid", `invalid ${source}: ${message}`, {
      details: { issues: r.error.issues },
    });
  }
  return withWorldbook(withDirectorySuite(r.data));
}

/** The prefix of `--env worldmodel:DIR`. */
export const WORLDMODEL_ENV_PREFIX = "worldmodel:";

/** `env: "worldmodel:DIR"` (flag or file) becomes `env: "worldmodel"` with the worldbook directory. */
function splitWorldmodelEnv(merged: Record<string, unknown>): void {
  const env = merged.env;
  if (typeof env !== "string" || !env.startsWith(WORLDMODEL_ENV_PREFIX)) return;
  const dir = env.slice(WORLDMODEL_ENV_PREFIX.length);
  if (dir === "")
    throw new UserError(
      "config.invalid",
      "--env worldmodel: needs the worldbook directory after the colon, e.g. --env worldmodel:./book",
    );
  merged.env = "worldmodel";
  merged.worldbook = dir;
}

/**
 * A `worldmodel` config names its worldbook by absolute directory, manifest hash and family (read and
 * validated now: a missing or invalid directory is the `worldbook.invalid` UserError); any other env
 * with a worldbook is a UserError.
 */
function withWorldbook(config: RunConfig): RunConfig {
  if (config.env !== "worldmodel") {
    if (config.worldbook === undefined) return config;
    throw new UserError(
      "config.invalid",
      `a worldbook (${config.worldbook.dir}) is only for the worldmodel environment, but the environment is ${config.env}; use --env worldmodel:${config.worldbook.dir} or drop the worldbook`,
    );
  }
  if (config.worldbook === undefined)
    throw new UserError(
      "config.invalid",
      "the worldmodel environment needs a worldbook directory; use --env worldmodel:DIR (or `worldbook: DIR` in the config file)",
    );
  const identity = worldbookIdentity(config.worldbook.dir);
  if (config.worldbook.hash !== undefined && config.worldbook.hash !== identity.hash)
    throw new UserError(
      "worldbook.changed",
      `the worldbook ${identity.dir} has manifest hash ${identity.hash}, but the config names ${config.worldbook.hash} (the book was rebuilt since); start a new run or restore that book`,
    );
  return { ...config, worldbook: identity };
}

/** The suite a task directory is recorded as: `dir:` and its absolute path. */
export function directorySuite(tasksDir: string): string {
  return `dir:${resolve(tasksDir)}`;
}

/**
 * A run of `--tasks-dir DIR` records its suite as `dir:<absolute DIR>` (never `builtin`), so `runs
 * list` and `runs show` say what was played; a config naming `suite: dir:<path>` plays that directory.
 */
function withDirectorySuite(config: RunConfig): RunConfig {
  if (config.tasksDir) return { ...config, suite: directorySuite(config.tasksDir) };
  if (config.suite.startsWith("dir:")) {
    const tasksDir = config.suite.slice("dir:".length);
    return { ...config, tasksDir, suite: directorySuite(tasksDir) };
  }
  return config;
}

/**
 * The policy a command uses when neither flags nor the config file name one: heuristic on the web,
 * template on the terminal (also for a world model of those families), random elsewhere.
 */
export function defaultPolicyFor(env: unknown): "heuristic" | "random" | "template" {
  // A world model plays like the family its worldbook simulates.
  if (typeof env === "string" && env.startsWith(WORLDMODEL_ENV_PREFIX))
    return defaultPolicyFor(worldbookFamilyHint(env.slice(WORLDMODEL_ENV_PREFIX.length)));
  if (env === "terminal") return "template";
  return env === "web" ? "heuristic" : "random";
}

/** The config a stored run was made with (for `--resume`), validated again. */
export function storedRunConfig(run: RunRecord): RunConfig {
  const parsed = RunConfigSchema.safeParse(run.config);
  if (!parsed.success)
    throw new UserError(
      `${run.kind}.bad_stored_config`,
      `stored config of ${run.id} no longer validates: ${formatZodIssues(parsed.error, "config")}; start a new run`,
    );
  return parsed.data;
}
