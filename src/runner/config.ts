import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { UserError } from "../core/index.ts";
import type { RunRecord } from "../store/index.ts";

/** The run configuration (file and flags). Flags override the file. */
export const RunConfigSchema = z
  .object({
    env: z.enum(["frozenlake", "web", "chess", "terminal"]).default("frozenlake"),
    /** Options passed to the environment factory (validated by the environment). */
    envOptions: z.record(z.string(), z.unknown()).default({}),
    suite: z.string().default("builtin"),
    tasksDir: z.string().optional(),
    /** Task ids, or "all". */
    tasks: z.union([z.literal("all"), z.array(z.string().min(1)).min(1)]).default("all"),
    policy: z
      .enum(["random", "scripted", "oracle", "heuristic", "heuristic-norecovery", "llm", "template"])
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
  return error.issues.map((i) => formatIssue(i, root)).join("; ");
}

function formatIssue(issue: z.core.$ZodIssue, root: string): string {
  return `${[root, ...issue.path.map(String)].join(".")}: ${issue.message}`;
}

/** Reads a YAML or JSON config file; every problem is a UserError naming the file and the field. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UserError(
      "config.unreadable",
      `cannot read config file ${path}: ${(e as Error).message}; check the path`,
      { cause: e },
    );
  }
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
  const r = RunConfigSchema.safeParse(merged);
  if (!r.success) {
    const flagOf = (key: string) =>
      flags[key] === undefined
        ? undefined
        : (flagNames[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    const message = r.error.issues
      .map((i) => {
        const flag = flagOf(String(i.path[0]));
        return flag ? `${flag}: ${i.message}` : formatIssue(i, source);
      })
      .join("; ");
    throw new UserError("config.invalid", `invalid ${source}: ${message}`, {
      details: { issues: r.error.issues },
    });
  }
  return withDirectorySuite(r.data);
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

/** The policy a command uses when neither flags nor the config file name one: heuristic on the web, template on the terminal. */
export function defaultPolicyFor(env: unknown): "heuristic" | "random" | "template" {
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
