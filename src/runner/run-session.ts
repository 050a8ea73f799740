import { type Environment, type Policy, type Runtime, type Task, UserError } from "../core/index.ts";
import type { RunStore } from "../store/index.ts";
import { codeVersion } from "./code-version.ts";
import { type RunConfig, RunConfigSchema } from "./config.ts";
import { createEnvironmentFromConfig, selectTasks } from "./environments.ts";
import { createPolicyFromConfig } from "./policies.ts";
import { markRunFailed, markRunInterrupted, type RunKind } from "./run-status.ts";
import type { SignalController } from "./signals.ts";
import { yieldingEnvironment } from "./yielding-environment.ts";

/** What every run of a session shares: the edge runtime, the store, and the signal policy. */
export interface RunnerDeps {
  runtime: Runtime;
  store: RunStore;
  /** SIGINT/SIGTERM → abort (see `createSignalController`); without one nothing aborts. */
  signals?: SignalController;
}

export interface RunSessionSpec {
  config: RunConfig;
  /** Environments to start (a search uses one per live environment). Default 1. */
  envs?: number;
}

/** The environments, tasks and policies of one command, and the runs it records. */
export interface RunSession {
  readonly config: RunConfig;
  readonly runtime: Runtime;
  readonly store: RunStore;
  readonly envs: ReadonlyArray<Environment>;
  /** The first environment. */
  readonly env: Environment;
  readonly tasks: ReadonlyArray<Task>;
  /** Aborted by the first SIGINT/SIGTERM: stop intake, let in-flight work finish or abort. */
  readonly signal: AbortSignal;
  /** The policy `name` (default: the config's), built once and closed with the session. */
  policy(name?: string): Promise<Policy>;
  /** Creates a run (status `running`) and writes the session's tasks to it, once. Returns its id. */
  createRun(kind: RunKind, options?: { id?: string; config?: Record<string, unknown> }): string;
  /** Marks a stored run `running` again (its tasks are already written). */
  resumeRun(runId: string): void;
  /** Ends a run `interrupted` (when `interrupted`, default: the signal aborted) or `complete`. */
  finishRun(
    runId: string,
    summary: Record<string, unknown>,
    interrupted?: boolean,
  ): "complete" | "interrupted";
  /** Ends a run `failed` with `error`, keeping `summary` beside it, and throws `error`. */
  failRun(runId: string, summary: Record<string, unknown>, error: Error): never;
}

/**
 * The oracle policy plays the environment's own solver: every task must have one. Checked before any
 * run is created, so a task without one is a user error up front, not a run of failed episodes.
 */
export function requireOracles(env: Environment, tasks: ReadonlyArray<Task>): void {
  const missing = tasks.filter((t) => !t.oracle || !env.oracleAction).map((t) => t.id);
  if (missing.length === 0) return;
  throw new UserError(
    "policy.no_oracle",
    `the oracle policy needs a solver, and task${missing.length > 1 ? "s" : ""} ${missing.join(", ")} of suite ${env.suite.name} ha${missing.length > 1 ? "ve" : "s"} none; choose another policy (random, heuristic, llm) or tasks with an oracle ('rehearsal tasks list' shows them)`,
    { details: { tasks: missing } },
  );
}

/**
 * Runs `body` with the environments, tasks and policies `spec.config` names. Every run the body
 * creates or resumes is closed for it: marked failed when the body throws, marked interrupted when the
 * body returns without finishing it or a second signal forces the exit; environments and policies are
 * closed whatever happens. The store belongs to the caller.
 */
export async function withRunSession<T>(
  deps: RunnerDeps,
  spec: RunSessionSpec,
  body: (session: RunSession) => Promise<T>,
): Promise<T> {
  const { runtime, store } = deps;
  const config = spec.config;
  const envs: Environment[] = [];
  const policies = new Map<string, Promise<Policy>>();
  const open = new Set<string>();
  const removeHook = deps.signals?.onForceExit(() => {
    for (const id of open) markRunInterrupted(store, id, runtime);
  });
  const signal = deps.signals?.signal ?? new AbortController().signal;
  try {
    for (let i = 0; i < (spec.envs ?? 1); i++)
      envs.push(yieldingEnvironment(await createEnvironmentFromConfig(config, runtime)));
    const env = envs[0] as Environment;
    const tasks = selectTasks(env.suite, config.tasks, config.tasksDir);
    const session: RunSession = {
      config,
      runtime,
      store,
      envs,
      env,
      tasks,
      signal,
      policy(name = config.policy) {
        if (name === "oracle") requireOracles(env, tasks);
        let p = policies.get(name);
        if (!p) {
          p = createPolicyFromConfig(RunConfigSchema.parse({ ...config, policy: name }), runtime);
          policies.set(name, p);
        }
        return p;
      },
      createRun(kind, options = {}) {
        const id = options.id ?? runtime.ids.next(kind);
        store.createRun({
          id,
          kind,
          seed: config.seed,
          config: options.config ?? config,
          codeVersion: codeVersion(),
          createdAtMs: runtime.clock.nowMs(),
        });
        open.add(id);
        for (const t of tasks) store.putTask(id, t);
        return id;
      },
      resumeRun(runId) {
        store.updateRun(runId, { status: "running", updatedAtMs: runtime.clock.nowMs() });
        open.add(runId);
      },
      finishRun(runId, summary, interrupted = signal.aborted) {
        const status = interrupted ? ("interrupted" as const) : ("complete" as const);
        store.updateRun(runId, { status, summary, updatedAtMs: runtime.clock.nowMs() });
        open.delete(runId);
        return status;
      },
      failRun(runId, summary, error) {
        store.updateRun(runId, { summary, updatedAtMs: runtime.clock.nowMs() });
        throw error;
      },
    };
    const result = await body(session);
    // A run the body left unfinished (an interrupted multi-run evaluation) stays resumable.
    for (const id of open) markRunInterrupted(store, id, runtime);
    return result;
  } catch (e) {
    for (const id of open) markRunFailed(store, id, runtime, e);
    throw e;
  } finally {
    removeHook?.();
    for (const p of policies.values()) await closeQuietly(p);
    for (const e of envs) await e.close();
  }
}

async function closeQuietly(policy: Promise<Policy>): Promise<void> {
  try {
    await (await policy).close?.();
  } catch {
    // A policy that failed to build or close does not hide the run's own outcome.
  }
}
