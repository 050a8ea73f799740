import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { canonicalJson, sha256Hex } from "../../core/hash.ts";
import type { Observation } from "../../core/observation.ts";
import type { StateRecord, StateScalar, StateViewer } from "../../core/state-view.ts";
import { stateFields } from "../state-fields.ts";
import { type LastResult, renderTerminalText, TranscriptEntrySchema } from "./episode.ts";
import type { TreeNode } from "./state-view.ts";
import { TERMINAL_FAMILY } from "./suite.ts";

const FIELDS = stateFields({
  cwd: "string",
  /** The last command, null before the first one. */
  command: "string",
  exitCode: "number",
  stdout: "string",
  stderr: "string",
  /** `running`, `truncated`, `ended (done)` or `ended (fail)`. */
  status: "string",
  "transcript.count": "number",
  "transcript.*.command": "string",
  "transcript.*.exitCode": "number",
  "transcript.*.output": "string",
  /** The file tree, when the observation carries it: paths in order, then per path (dots as `%2E`). */
  "fs.paths": "list",
  "fs.*.kind": "string",
  "fs.*.size": "number",
  "fs.*.sha256": "string",
  "fs.*.target": "string",
});

const STATUSES = ["ended (done)", "ended (fail)", "truncated"] as const;

const TreeNodeSchema = z.object({
  path: z.string(),
  kind: z.enum(["file", "dir", "symlink"]),
  size: z.number().optional(),
  sha256: z.string().optional(),
  target: z.string().optional(),
});
const TerminalDataSchema = z.object({
  cwd: z.string(),
  exitCode: z.number().int().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  transcript: z.array(TranscriptEntrySchema),
  state: z.object({ tree: z.array(TreeNodeSchema) }).optional(),
});

/** A file path as one dotted-path segment: `%` and `.` escaped. */
export function terminalPathSegment(path: string): string {
  return path.replaceAll("%", "%25").replaceAll(".", "%2E");
}

function statusOf(text: string): string {
  return STATUSES.find((s) => text.endsWith(`\n\nEpisode ${s}.`)) ?? "running";
}

function viewError(problem: string): UserError {
  return new UserError(
    "terminal.bad_state_view",
    `Terminal state view: ${problem}. View only observations a terminal environment produced (with their data).`,
  );
}

/** The terminal state an observation shows: cwd, the last command and its result, transcript, file tree. */
function view(observation: Observation): StateRecord {
  const parsed = TerminalDataSchema.safeParse(observation.data ?? {});
  if (!parsed.success) throw viewError(`its data is not the terminal's (${parsed.error.issues[0]?.message})`);
  const d = parsed.data;
  const status = statusOf(observation.text);
  let command: string | null = null;
  if (d.exitCode !== null) {
    // The text is `$ <command>` then what follows from the known parts: rendered with an empty command.
    const rest = renderTerminalText({
      cwd: d.cwd,
      last: { command: "", stdout: d.stdout, stderr: d.stderr, exitCode: d.exitCode },
      transcript: d.transcript,
      status,
    }).slice(2);
    const text = observation.text;
    if (!text.startsWith("$ ") || !text.endsWith(rest)) throw viewError("its text does not show its data");
    command = text.slice(2, text.length - rest.length);
  }
  const record: StateRecord = {
    cwd: d.cwd,
    command,
    exitCode: d.exitCode,
    stdout: d.stdout,
    stderr: d.stderr,
    status,
    "transcript.count": d.transcript.length,
  };
  d.transcript.forEach((t, i) => {
    record[`transcript.${i}.command`] = t.command;
    record[`transcript.${i}.exitCode`] = t.exitCode;
    record[`transcript.${i}.output`] = t.output;
  });
  if (d.state) {
    record["fs.paths"] = d.state.tree.map((n) => n.path);
    for (const n of d.state.tree) {
      const at = `fs.${terminalPathSegment(n.path)}`;
      record[`${at}.kind`] = n.kind;
      if (n.size !== undefined) record[`${at}.size`] = n.size;
      if (n.sha256 !== undefined) record[`${at}.sha256`] = n.sha256;
      if (n.target !== undefined) record[`${at}.target`] = n.target;
    }
  }
  return record;
}

function treeOf(state: StateRecord, paths: ReadonlyArray<StateScalar>): TreeNode[] {
  return paths.map((p): TreeNode => {
    const path = String(p);
    const at = `fs.${terminalPathSegment(path)}`;
    const kind = String(state[`${at}.kind`] ?? "file") as TreeNode["kind"];
    if (kind === "dir") return { path, kind };
    if (kind === "symlink") return { path, kind, target: String(state[`${at}.target`] ?? "") };
    return {
      path,
      kind,
      size: Number(state[`${at}.size`] ?? 0),
      sha256: String(state[`${at}.sha256`] ?? ""),
    };
  });
}

/** The environment's observation of `state`, with its own text renderer and state-key digest. */
function render(state: StateRecord, previous: Observation): Observation {
  const cwd = String(state.cwd ?? "/");
  const exitCode = state.exitCode === null || state.exitCode === undefined ? null : Number(state.exitCode);
  const stdout = String(state.stdout ?? "");
  const stderr = String(state.stderr ?? "");
  const last: LastResult | null =
    state.command === null || state.command === undefined || exitCode === null
      ? null
      : { command: String(state.command), stdout, stderr, exitCode };
  const transcript = Array.from({ length: Number(state["transcript.count"] ?? 0) }, (_, i) => ({
    command: String(state[`transcript.${i}.command`] ?? ""),
    exitCode: Number(state[`transcript.${i}.exitCode`] ?? 0),
    output: String(state[`transcript.${i}.output`] ?? ""),
  }));
  const status = String(state.status ?? "running");
  const data: Record<string, unknown> = { cwd, exitCode, stdout, stderr, transcript };
  const observation: Observation = { text: renderTerminalText({ cwd, last, transcript, status }), data };
  if (previous.instruction !== undefined) observation.instruction = previous.instruction;
  const paths = state["fs.paths"];
  if (Array.isArray(paths)) {
    const tree = treeOf(state, paths);
    data.state = { cwd, lastExitCode: exitCode, tree };
    const task = /^terminal:(.*):[0-9a-f]+$/.exec(previous.stateKey ?? "")?.[1];
    if (task !== undefined) {
      const digest = sha256Hex(canonicalJson({ cwd, tree })).slice(0, 16);
      observation.stateKey = `terminal:${task}:${digest}`;
    }
  } else if (previous.stateKey !== undefined) observation.stateKey = previous.stateKey;
  return observation;
}

/** Terminal observations as states (see `StateViewer`). */
export const terminalStateViewer: StateViewer = {
  family: TERMINAL_FAMILY,
  fields: FIELDS,
  view,
  render,
};
