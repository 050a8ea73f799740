import type { Action } from "../../core/action.ts";
import { MAX_SHELL_COMMAND_CHARS, ShellActionSchema } from "../../core/action.ts";
import type { Capabilities, EnvironmentSnapshot, ResetOptions, StepResult } from "../../core/environment.ts";
import { sha256Hex } from "../../core/hash.ts";
import type { ActionError, Observation } from "../../core/observation.ts";
import { createRandom, type Random, restoreRandom } from "../../core/random.ts";
import type { TaskSuite } from "../../core/task.ts";
import type { VerifierResult } from "../../core/verifier.ts";
import { EpisodeSlot, endedStep, episodeEndedError, type SnapshotEnvironment } from "../episode-kit.ts";
import { parseTerminalConfig, type TerminalConfig, type TerminalConfigInput } from "./config.ts";
import { renderTerminalText, type TerminalState, TerminalStateSchema, truncateOutput } from "./episode.ts";
import { createSandboxShell, type SandboxShell, type SavedEntry } from "./sandbox.ts";
import { FsView, type TerminalStateView, treeOf } from "./state-view.ts";
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

export interface TerminalEnvironment extends SnapshotEnvironment {
  readonly config: TerminalConfig;
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
  /** The file tree (sizes, digests) of file-system version `version`, kept until a command changes it. */
  tree?: { version: number; tree: TerminalStateView["tree"]; treeJson: string };
  /** The state key of a tree and cwd, kept while neither changes (most commands change neither). */
  key?: { treeJson: string; cwd: string; stateKey: string };
}

/** `terminal:<task>:<digest of {cwd, tree}>`, hashed again only when the tree or the cwd changed. */
function stateKeyOf(live: Live, cwd: string, treeJson: string): string {
  const kept = live.key;
  if (kept !== undefined && kept.treeJson === treeJson && kept.cwd === cwd) return kept.stateKey;
  // Equal to canonicalJson({cwd, tree}) without re-sorting the unchanged tree.
  const keyJson = `{"cwd":${JSON.stringify(cwd)},"tree":${treeJson}}`;
  const stateKey = `terminal:${live.spec.id}:${sha256Hex(keyJson).slice(0, 16)}`;
  live.key = { treeJson, cwd, stateKey };
  return stateKey;
}

/** The structured tree of the live file system, recomputed only after the file system changed. */
async function liveTree(live: Live): Promise<NonNullable<Live["tree"]>> {
  const version = live.shell.version;
  if (live.tree?.version === version) return live.tree;
  const computed = { version, ...treeOf(await live.shell.save()) };
  if (live.shell.version === version) live.tree = computed;
  return computed;
}

/**
 * The command of a well-formed shell action, checked without zod (a step's commonest input): exactly
 * what `ShellActionSchema` accepts (an object with only own keys `type` "shell" and a non-blank
 * `command` string of 1..MAX_SHELL_COMMAND_CHARS), else undefined and the schema decides (and words
 * the error).
 */
export function plainShellCommand(action: unknown): string | undefined {
  if (typeof action !== "object" || action === null || Array.isArray(action)) return undefined;
  const a = action as { type?: unknown; command?: unknown };
  if (a.type !== "shell" || typeof a.command !== "string") return undefined;
  const keys = Object.keys(a);
  if (keys.length !== 2 || !keys.includes("type") || !keys.includes("command")) return undefined;
  const command = a.command;
  if (command.length < 1 || command.length > MAX_SHELL_COMMAND_CHARS || command.trim().length === 0)
    return undefined;
  return command;
}

/** The command of a valid shell action, or undefined (the fast check first, the schema otherwise). */
function shellCommandOf(action: unknown): string | undefined {
  const plain = plainShellCommand(action);
  if (plain !== undefined) return plain;
  const parsed = ShellActionSchema.safeParse(action);
  return parsed.success ? parsed.data.command : undefined;
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
  private readonly slot = new EpisodeSlot<Live>(TERMINAL_FAMILY, "Terminal");

  constructor(
    readonly config: TerminalConfig,
    readonly suite: TaskSuite,
  ) {}

  async reset(options: ResetOptions): Promise<Observation> {
    const { taskId, seed } = this.slot.parseReset(options, "{taskId: string, seed: non-negative integer}");
    this.suite.get(taskId);
    const spec = terminalTaskSpec(taskId);
    const world = buildTerminalWorld(spec, seed);
    const live = this.slot.set({
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
    });
    return this.observe(live);
  }

  async step(action: Action): Promise<StepResult> {
    const live = this.slot.require("step");
    const s = live.state;
    if (s.terminated || s.truncated)
      return endedStep(await this.observe(live, episodeEndedError("terminal", ".")), s);
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
      const command = shellCommandOf(action);
      if (command === undefined || command.length > this.config.maxCommandChars) {
        s.lastError = {
          code: "invalid_action",
          message:
            `The terminal accepts {"type":"shell","command":"..."} (at most ${this.config.maxCommandChars} characters), ` +
            `{"type":"done","answer"?} or {"type":"fail"}; got ${JSON.stringify(action).slice(0, 120)}.`,
        };
      } else {
        await this.runCommand(live, command, info);
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
    if (out.fast) info.fastPath = true;
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
    if (out.stoppedBy === "filesystem") {
      info.stoppedBy = out.stoppedBy;
      s.lastError = {
        code: "filesystem_limit_exceeded",
        message: `The command's write went past the file-system limit of ${this.config.limits.maxFileSystemBytes} bytes and failed (exit code 1; what it wrote before is kept). Remove files or write less.`,
      };
    } else if (out.stoppedBy) {
      info.stoppedBy = out.stoppedBy;
      s.lastError = {
        code: out.stoppedBy === "timeout" ? "command_timeout" : "command_budget_exceeded",
        message: `The command was stopped: ${out.stderr.trim().slice(0, 200)}. Avoid endless loops and unbounded output.`,
      };
    }
    if (live.world.oracle[s.oracleCursor] === command) s.oracleCursor++;
  }

  async evaluate(): Promise<VerifierResult> {
    const live = this.slot.require("evaluate");
    const view = new FsView(await live.shell.save());
    const result = verifyTerminal(live.spec, live.world, view, live.state.answer);
    if (live.state.outcome === "fail")
      return { ...result, reward: 0, success: false, reason: `gave up; ${result.reason}` };
    return result;
  }

  async fingerprint(): Promise<string> {
    const live = this.slot.require("fingerprint");
    const { last: _l, transcript: _t, ...rest } = live.state;
    const state = { ...rest, entries: await live.shell.save(), random: live.random.getState() };
    return this.slot.fingerprintOf(live.spec.id, { seed: live.seed, ...state });
  }

  async stateView(): Promise<TerminalStateView> {
    const live = this.slot.require("stateView");
    const { tree } = await liveTree(live);
    return { cwd: live.state.cwd, lastExitCode: live.state.last?.exitCode ?? null, tree };
  }

  async snapshot(): Promise<EnvironmentSnapshot> {
    const live = this.slot.require("snapshot");
    const state: TerminalState = {
      ...structuredClone(live.state),
      entries: (await live.shell.save()).map((e) => ({ ...e })),
      random: live.random.getState(),
    };
    return this.slot.snapshotOf(live.spec.id, live.seed, state);
  }

  async restore(snapshot: EnvironmentSnapshot): Promise<Observation> {
    const snap = this.slot.readSnapshot(snapshot, TerminalStateSchema);
    const spec = terminalTaskSpec(snap.taskId);
    const { entries, random, ...state } = snap.state;
    const live = this.slot.set({
      spec,
      world: buildTerminalWorld(spec, snap.seed),
      seed: snap.seed,
      shell: await createSandboxShell(this.config.limits, entries as SavedEntry[], { exact: true }),
      random: restoreRandom(random, `${TERMINAL_FAMILY}|${snap.taskId}|${snap.seed}|shell`),
      state: structuredClone(state),
    });
    return this.observe(live);
  }

  async oracleAction(): Promise<Action | null> {
    const live = this.slot.require("oracleAction");
    const s = live.state;
    if (s.terminated || s.truncated) return null;
    const next = live.world.oracle[s.oracleCursor];
    if (next !== undefined) return { type: "shell", command: next };
    return live.world.answer === undefined ? { type: "done" } : { type: "done", answer: live.world.answer };
  }

  async close(): Promise<void> {
    this.slot.close();
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
    const { tree, treeJson } = await liveTree(live);
    const view: TerminalStateView = { cwd: s.cwd, lastExitCode: s.last?.exitCode ?? null, tree };
    const shown = error ?? s.lastError;
    return {
      text: renderTerminalText({ cwd: s.cwd, last: s.last, transcript: s.transcript, status }),
      instruction: live.world.instruction,
      stateKey: stateKeyOf(live, s.cwd, treeJson),
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
}

/** A terminal environment: a sandboxed bash (just-bash) on a virtual file system. Throws a UserError on a bad config. */
export function createTerminalEnvironment(
  config: TerminalConfigInput = {},
  options: { suite?: TaskSuite } = {},
): TerminalEnvironment {
  return new Terminal(parseTerminalConfig(config), options.suite ?? createTerminalSuite());
}
