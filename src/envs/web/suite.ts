import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type Task, TaskSchema, type TaskSuite, UserError } from "../../core/index.ts";

const here = dirname(fileURLToPath(import.meta.url));
/** src/envs/web-tasks: the built-in task pages and core.js. */
export const WEB_TASKS_ROOT = resolve(here, "..", "web-tasks");
export const BUILTIN_TASKS_DIR = join(WEB_TASKS_ROOT, "tasks");
export const CORE_DIR = join(WEB_TASKS_ROOT, "core");

/** task.json (see src/envs/web-tasks/PROTOCOL.md). */
export const WebTaskManifestSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "task ids are lower-case words joined with '-'"),
    title: z.string().min(1),
    tier: z.enum(["short", "long"]),
    split: z.enum(["train", "heldout"]).default("train"),
    maxSteps: z.number().int().positive().max(1000),
    successThreshold: z.number().min(-1).max(1).optional(),
    description: z.string().min(1),
    tags: z.array(z.string()).optional(),
  })
  .strict();
export type WebTaskManifest = z.infer<typeof WebTaskManifestSchema>;

/** A loose manifest for a page of a MiniWoB directory (`<id>.json` beside `<id>.html`). */
const PageManifestSchema = WebTaskManifestSchema.partial().strict();

/** A web task suite: tasks plus where the task server mounts its directory. */
export interface WebSuite extends TaskSuite {
  readonly family: "web";
  /** Directory served under `mountPath`: the tasks directory, or a folder above it (MiniWoB layout). */
  readonly root: string;
  /** Directory the tasks were loaded from (`root` itself or a folder inside it). */
  readonly tasksDir: string;
  /** URL prefix, e.g. `/tasks/` (built-in) or `/suites/<name>/`. */
  readonly mountPath: string;
  /** The task's entry page, as a path on the task server. */
  entryPath(taskId: string): string;
}

export interface CreateWebSuiteOptions {
  /** Directory of task folders (`<id>/task.json` + `index.html`) and/or `.html` pages; default built-in. */
  dir?: string;
  /** Suite name; default "builtin" for the built-in directory, else the directory's base name. */
  name?: string;
  /**
   * Directory the task server serves (it must hold `dir`); default: `dir`'s parent when a `core/` or
   * `common/` folder lies beside `dir` (MiniWoB++ layout: pages load `../core/*`, `../common/*`),
   * else `dir` itself.
   */
  root?: string;
}

/** True when `dir`'s parent has a `core/` or `common/` folder beside `dir` (MiniWoB++ layout). */
function besideSharedFolders(dir: string): boolean {
  const parent = dirname(dir);
  if (parent === dir) return false;
  return ["core", "common"].some((f) => {
    const full = join(parent, f);
    return full !== dir && existsSync(full) && statSync(full).isDirectory();
  });
}

/** The served root for a tasks directory: checked to exist and to hold the directory. */
function servedRoot(dir: string, root: string | undefined): string {
  if (root === undefined) return besideSharedFolders(dir) ? dirname(dir) : dir;
  const full = resolve(root);
  if (!existsSync(full) || !statSync(full).isDirectory()) {
    throw new UserError("task.root_missing", `tasks root ${full} does not exist or is not a directory`);
  }
  if (full !== dir && !dir.startsWith(full + sep)) {
    throw new UserError(
      "task.root_invalid",
      `tasks root ${full} does not hold the tasks directory ${dir}; give a folder above it (or drop the root)`,
    );
  }
  return full;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UserError("task.manifest_invalid", `cannot read ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function parseManifest<T>(schema: z.ZodType<T>, file: string): T {
  const parsed = schema.safeParse(readJson(file));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new UserError("task.manifest_invalid", `invalid task manifest ${file}: ${issues}`);
  }
  return parsed.data;
}

function toTask(m: WebTaskManifest, entry: string, page: string): Task {
  const hasOracle = page.includes("rehearsalOracle");
  return TaskSchema.parse({
    id: m.id,
    instruction: m.description,
    family: "web",
    split: m.split,
    verifier: {
      kind: "wob-reward",
      ...(m.successThreshold === undefined ? {} : { successThreshold: m.successThreshold }),
    },
    ...(hasOracle ? { oracle: { kind: "page" } } : {}),
    tier: m.tier,
    maxSteps: m.maxSteps,
    tags: m.tags ?? [],
    params: {
      title: m.title,
      entry,
      snapshot: page.includes("rehearsalSaveState") && page.includes("rehearsalRestoreState"),
    },
  });
}

function loadTasks(root: string): Task[] {
  const tasks: Task[] = [];
  const seen = new Set<string>();
  const add = (t: Task) => {
    if (seen.has(t.id)) throw new UserError("task.duplicate_id", `task id ${t.id} appears twice in ${root}`);
    seen.add(t.id);
    tasks.push(t);
  };
  for (const name of readdirSync(root).sort()) {
    const full = join(root, name);
    const isDir = statSync(full).isDirectory();
    if (isDir && existsSync(join(full, "task.json"))) {
      const m = parseManifest(WebTaskManifestSchema, join(full, "task.json"));
      if (m.id !== name) {
        throw new UserError(
          "task.manifest_invalid",
          `${full}/task.json has id ${m.id}; it must equal the folder name`,
        );
      }
      const index = join(full, "index.html");
      if (!existsSync(index))
        throw new UserError("task.page_missing", `task ${name} has no index.html in ${full}`);
      add(toTask(m, `${name}/index.html`, readFileSync(index, "utf8")));
    } else if (!isDir && /\.html?$/i.test(name)) {
      const id = name.replace(/\.html?$/i, "");
      const side = join(root, `${id}.json`);
      const extra = existsSync(side) ? parseManifest(PageManifestSchema, side) : {};
      const m: WebTaskManifest = {
        id,
        title: extra.title ?? id,
        tier: extra.tier ?? "short",
        split: extra.split ?? "train",
        maxSteps: extra.maxSteps ?? 15,
        description: extra.description ?? `MiniWoB-style task ${id}`,
        ...(extra.successThreshold === undefined ? {} : { successThreshold: extra.successThreshold }),
        ...(extra.tags === undefined ? {} : { tags: extra.tags }),
      };
      add(toTask(m, name, readFileSync(full, "utf8")));
    }
  }
  return tasks;
}

/**
 * Loads a web task suite: every `<id>/task.json` folder (built-in layout) and every `.html` page
 * directly in the directory (MiniWoB layout, id = file name). Tasks are sorted by id.
 */
export function createWebSuite(options: CreateWebSuiteOptions = {}): WebSuite {
  const root = resolve(options.dir ?? BUILTIN_TASKS_DIR);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new UserError("task.dir_missing", `tasks directory ${root} does not exist or is not a directory`);
  }
  const builtin = root === resolve(BUILTIN_TASKS_DIR);
  const name = options.name ?? (builtin ? "builtin" : basename(root));
  const mountPath = builtin ? "/tasks/" : `/suites/${encodeURIComponent(name)}/`;
  const served = builtin ? root : servedRoot(root, options.root);
  const below = relative(served, root)
    .split(sep)
    .filter((part) => part !== "")
    .map((part) => `${encodeURIComponent(part)}/`)
    .join("");
  const tasks = loadTasks(root);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const get = (id: string): Task => {
    const t = byId.get(id);
    if (!t) {
      const known = tasks.map((x) => x.id).join(", ") || "(none)";
      throw new UserError("task.unknown", `unknown web task "${id}" in suite ${name}; known: ${known}`, {
        details: { taskId: id, suite: name },
      });
    }
    return t;
  };
  return {
    name,
    family: "web",
    root: served,
    tasksDir: root,
    mountPath,
    list: () => tasks,
    get,
    entryPath: (id) => `${mountPath}${below}${String(get(id).params?.entry)}`,
  };
}
