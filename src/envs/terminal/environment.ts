import type { Action } from "../../core/action.ts";
import { ShellActionSchema } from "../../core/action.ts";
import type {
  Capabilities,
  Environment,
  EnvironmentSnapshot,
  ResetOptions,
  StepResult,
} from "../../core/environment.ts";
import { ResetOptionsSchema } from "../../core/environment.ts";
import { UserError } from "../../core/errors.ts";
import { canonicalJson, sha256Hex } from "../../core/hash.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { createRandom, type Random, restoreRandom } from "../../core/random.ts";
import { readSnapshot, stateDigest } from "../../core/snapshot.ts";
import type { TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import { parseTerminalConfig, type TerminalConfig, type TerminalConfigInput } from "./config.ts";
import { renderTerminalText, type TerminalState, TerminalStateSchema, truncateOutput } from "./episode.ts";
import { createSandboxShell, type SandboxShell, type SavedEntry } from "./sandbox.ts";
import { FsView, stateViewOf, type TerminalStateView } from "./state-view.ts";
import {
  buildTerminalWorld,
  createTerminalSuite,
  TERMINAL_FAMILY,
  terminalTaskSpec,
  verifyTerminal,
} from "./suite.ts";
import { HOME, type TaskWorld, type TerminalTaskSpec } from "./tasks/spec.ts";

/** The environment variables every episode starts with. */
export const TERMINAL_BASE_ENV: Readonly<Record<string, string>> = {
  HOME,
  USER: "user",
  LOGNAME: "user",
  PATH: "/usr/bin:/bin",
  SHELL: "/bin/bash",
  TERM: "dumb",
  LANG: "C.UTF-8",
  PWD: HOME,
};

export interface TerminalEnvironment extends Environment {
  readonly config: TerminalConfig;
  snapshot(): Promise<EnvironmentSnapshot>;
  restore(snapshot: EnvironmentSnapshot): Promise<Observation>;
  oracleAction(): Promise<Action | null>;
  /** The structured state (file tree with sizes and digests, cwd, last exit code). */
  stateView(): Promise<TerminalStateView>;
}

interface Live {
  spec: TerminalTaskSpec;
  world: TaskWorld;
  seed: number;
  shell: SandboxShell;
  random: Random;
  state: Omit<TerminalState, "entries" | "random">;
}

function worldEntries(world: TaskWorld): SavedEntry[] {
  const dirs = new Set<string>([HOME, "/tmp"]);
  for (const d of world.dirs ?? []) dirs.add(d);
  for (const p of Object.keys(world.files)) {
    for (let at = p.lastIndexOf("/"); at > 0; at = p.lastIndexOf("/", at - 1)) dirs.add(p.slice(0, at));
  }
  return [
    ...[...dirs].sort().map((path): SavedEntry => ({ path, kind: "dir", mode: 0o755 })),
    ...Object.entries(world.files).map(
      ([path, text]): SavedEntry => ({ path, kind: "file", mode: 0o644, text }),
    ),
  ];
}

class Terminal implements TerminalEnvironment {
  readonly family = TERMINAL_FAMILY;
  readonly capabilities: Capabilities = { snapshot: true, replay: true, deterministic: true };
  private live: Live | undefined;
  private closed = false;

  constructor(
    readonly config: TerminalConfig,
    readonly suite: TaskSuite,
  ) {}

  async reset(options: ResetOptions): Promise<Observation> {
    this.ensureOpen("reset");
    const parsed = ResetOptionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new UserError(
        "terminal.bad_reset",
        `Terminal reset needs {taskId: string, seed: non-negative integer}; got ${JSON.stringify(options)}.`,
      );
    }
    const { taskId, seed } = parsed.data;
    this.suite.get(taskId);
    const spec = terminalTaskSpec(taskId);
    const world = buildTerminalWorld(spec, seed);
    this.live = {
      spec,
      world,
      seed,
      shell: await createSandboxShell(this.config.limits, worldEntries(world)),
      random: createRandom(TERMINAL_FAMILY, taskId, seed, "shell"),
      state: {
        cwd: HOME,
        env: { ...TERMINAL_BASE_ENV },
        steps: 0,
        terminated: false,
        truncated: false,
        oracleCursor: 0,
        last: null,
        transcript: [],
      },
    };
    return this.observe(this.live);
  }

  async step(action: Action): Promise<StepResult> {
    const live = this.requireLive("step");
    const s = live.state;
    if (s.terminated || s.truncated) {
      const error = {
        code: "episode_ended",
        message: "The terminal episode has ended; call reset({taskId, seed}).",
      };
      return {
        observation: await this.observe(live, error),
        reward: 0,
        terminated: s.terminated,
        truncated: s.truncated,
        info: {},
      };
    }
    s.steps++;
    const horizon = live.spec.maxSteps ?? this.config.horizon;
    let reward = 0;
    const info: Record<string, unknown> = {};
    s.lastError = undefined;
    if (action?.type === "done" || action?.type === "fail") {
      s.terminated = true;
      s.outcome = action.type;
      if (action.type === "done" && action.answer !== undefined) s.answer = action.answer;
      if (action.type === "done") reward = (await this.evaluate()).reward;
    } else {
      const shell = ShellActionSchema.safeParse(action);
      if (!shell.success || shell.data.command.length > this.config.maxCommandChars) {
        s.lastError = {
          code: "invalid_action",
          message:
            `The terminal accepts {"type":"shell","command":"..."} (at most ${this.config.maxCommandChars} characters), ` +
            `{"type":"done","answer"?} or {"type":"fail"}; got ${JSON.stringify(action).slice(0, 120)}.`,
        };
      } else {
        await this.runCommand(live, shell.data.command, info);
      }
    }
    s.truncated = !s.terminated && s.steps >= horizon;
    return {
      observation: await this.observe(live),
      reward,
      terminated: s.terminated,
      truncated: s.truncated,
      info,
    };
  }

  private async runCommand(live: Live, command: string, info: Record<string, unknown>): Promise<void> {
    const s = live.state;
    const started = performance.now();
    const out = await live.shell.run(command, s.cwd, s.env, live.random);
    info.shellMs = performance.now() - started;
    const max = this.config.maxOutputChars;
    const stdout = truncateOutput(out.stdout, max);
    const stderr = truncateOutput(out.stderr, max);
    info.outputTruncated = stdout !== out.stdout || stderr !== out.stderr;
    s.env = { ...out.env };
    s.cwd = out.env.PWD?.startsWith("/") ? out.env.PWD : s.cwd;
    s.last = { command, stdout, stderr, exitCode: out.exitCode };
    const both = `${out.stdout}${out.stderr}`;
    s.transcript.push({
      command,
      exitCode: out.exitCode,
      output: truncateOutput(both, this.config.transcriptOutputChars),
    });
    if (s.transcript.length > this.config.transcriptLength)
      s.transcript.splice(0, s.transcript.length - this.config.transcriptLength);
    if (out.stoppedBy) {
      info.stoppedBy = out.stoppedBy;
      s.lastError = {
        code: out.stoppedBy === "timeout" ? "command_timeout" : "command_budget_exceeded",
        message: `The command was stopped: ${out.stderr.trim().slice(0, 200)}. Avoid endless loops and unbounded output.`,
      };
    }
    if (live.world.oracle[s.oracleCursor] === command) s.oracleCursor++;
  }

  async evaluate(): Promise<VerifierResult> {
    const live = this.requireLive("evaluate");
    const view = new FsView(await live.shell.save());
    const result = verifyTerminal(live.spec, live.world, view, live.state.answer);
    if (live.state.outcome === "fail")
      return { ...result, reward: 0, success: false, reason: `gave up; ${result.reason}` };
    return result;
  }

  async fingerprint(): Promise<string> {
    const live = this.requireLive("fingerprint");
    const { last: _l, transcript: _t, lastError: _e, ...rest } = live.state;
    const state = { ...rest, entries: await live.shell.save(), random: live.random.getState() };
    return stateDigest(this.family, live.spec.id, { seed: live.seed, ...state });
  }

  async stateView(): Promise<TerminalStateView> {
    const live = this.requireLive("stateView");
    return stateViewOf(await live.shell.save(), live.state.cwd, live.state.last?.exitCode ?? null);
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    const live = this.requireLive("snapshot");
    const state: TerminalState = {
      ...structuredClone(live.state),
      entries: await live.shell.save(),
      random: live.random.getState(),
    };
    return { family: this.family, taskId: live.spec.id, seed: live.seed, state };
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    this.ensureOpen("restore");
    const snap = readSnapshot(
      snapshot,
      this.family,
      TerminalStateSchema,
      "terminal.bad_snapshot",
      "Terminal",
    );
    const spec = terminalTaskSpec(snap.taskId);
    const { entries, random, ...state } = snap.state;
    this.live = {
      spec,
      world: buildTerminalWorld(spec, snap.seed),
      seed: snap.seed,
      shell: await createSandboxShell(this.config.limits, entries as SavedEntry[]),
      random: restoreRandom(random, `${TERMINAL_FAMILY}|${snap.taskId}|${snap.seed}|shell`),
      state: structuredClone(state),
    };
    return this.observe(this.live);
  }

  async oracleAction(): Promise<Action | null> {
    const live = this.requireLive("oracleAction");
    const s = live.state;
    if (s.terminated || s.truncated) return null;
    const next = live.world.oracle[s.oracleCursor];
    if (next !== undefined) return { type: "shell", command: next };
    return live.world.answer === undefined ? { type: "done" } : { type: "done", answer: live.world.answer };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.live = undefined;
  }

  private async observe(live: Live, error?: ActionError): Promise<Observation> {
    const s = live.state;
    const status = s.terminated
      ? s.outcome === "fail"
        ? "ended (fail)"
        : "ended (done)"
      : s.truncated
        ? "truncated"
        : "running";
    const entries = await live.shell.save();
    const view = stateViewOf(entries, s.cwd, s.last?.exitCode ?? null);
    const shown = error ?? s.lastError;
    return {
      text: renderTerminalText({ cwd: s.cwd, last: s.last, transcript: s.transcript, status }),
      instruction: live.world.instruction,
      stateKey: `terminal:${live.spec.id}:${sha256Hex(canonicalJson({ cwd: s.cwd, tree: view.tree })).slice(0, 16)}`,
      data: {
        cwd: s.cwd,
        exitCode: s.last?.exitCode ?? null,
        stdout: s.last?.stdout ?? "",
        stderr: s.last?.stderr ?? "",
        transcript: s.transcript.map((t) => ({ ...t })),
        ...(this.config.includeStateView ? { state: view } : {}),
      },
      ...(shown ? { error: { ...shown } } : {}),
    };
  }

  private ensureOpen(operation: string): void {
    if (this.closed) {
      throw new UserError(
        "terminal.closed",
        `Terminal ${operation}() after close(); create a new environment.`,
      );
    }
  }

  private requireLive(operation: string): Live {
    this.ensureOpen(operation);
    if (!this.live) {
      throw new UserError(
        "terminal.not_reset",
        `Terminal ${operation}() before reset(); call reset({taskId, seed}) first.`,
      );
    }
    return this.live;
  }
}

/** A terminal environment: a sandboxed bash (just-bash) on a virtual file system. Throws a UserError on a bad config. */
export function createTerminalEnvironment(
  config: TerminalConfigInput = {},
  options: { suite?: TaskSuite } = {},
): TerminalEnvironment {
  return new Terminal(parseTerminalConfig(config), options.suite ?? createTerminalSuite());
}
