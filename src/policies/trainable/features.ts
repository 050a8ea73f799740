import { type Action, type PolicyContext, sha256Hex } from "../../core/index.ts";
import { parseAxtree } from "../../envs/web/accessibility-text.ts";
import { tokens } from "../heuristic-web/instruction.ts";
import { actionKey, familyOf } from "./candidates.ts";
import { frozenLakeFeatures } from "./frozenlake-features.ts";
import type { Features } from "./log-linear.ts";

/**
 * The features the trainable policies score a candidate with (φ(s, a) of `log-linear.ts`). Every
 * feature is named (never hashed): a checkpoint's weights say what they weigh. Features read the
 * task, the current observation and the last `HISTORY_WINDOW` actions; an exported record carries
 * its whole policy context (`export/policy-context.ts`), so training sees what the policy sees.
 */

/** Previous actions the features look at: the export's and the llm prompt's default history length. */
export const HISTORY_WINDOW = 5;

/** The tabular policy's state key: a digest of the observation text (FrozenLake: the grid and status). */
export function stateKeyOf(context: Pick<PolicyContext, "observation">): string {
  return sha256Hex(context.observation.text).slice(0, 16);
}

/** The tabular feature: one indicator per (state key, action). */
export function tabularFeatures(context: PolicyContext, action: Action): Features {
  return [[`s=${stateKeyOf(context)}|a=${actionKey(action)}`, 1]];
}

/** The step bucket a feature names: 0, 1, 2, 3-5, 6-10, 11+. */
export function stepBucket(step: number): string {
  if (step <= 2) return String(step);
  if (step <= 5) return "3-5";
  return step <= 10 ? "6-10" : "11+";
}

/** Overlap bucket of a count: 0, 1, 2, 3+. */
function countBucket(n: number): string {
  return n >= 3 ? "3+" : String(n);
}

/** The share of `words` found in the instruction's words (0 when there are none). */
function overlapShare(words: ReadonlyArray<string>, instruction: ReadonlySet<string>): number {
  if (words.length === 0) return 0;
  return words.filter((w) => instruction.has(w)).length / words.length;
}

function recentActions(context: PolicyContext): Action[] {
  return context.history.slice(-HISTORY_WINDOW).flatMap((h) => (h.action ? [h.action] : []));
}

function elementIdOf(action: Action): string | undefined {
  return "elementId" in action && typeof action.elementId === "string" ? action.elementId : undefined;
}

/** What a web candidate's element says: role, overlap of name/value with the instruction, acted on. */
function webFeatures(
  context: PolicyContext,
  action: Action,
  instruction: ReadonlySet<string>,
  recent: ReadonlyArray<Action>,
): Array<[string, number]> {
  const type = action.type;
  const out: Array<[string, number]> = [];
  const id = elementIdOf(action);
  if (id !== undefined) {
    const el = parseAxtree(context.observation.axtree ?? context.observation.text).elements.find(
      (e) => e.id === id,
    );
    const words = tokens(`${el?.name ?? ""} ${el?.value ?? ""}`);
    const hits = words.filter((w) => instruction.has(w)).length;
    out.push([`web:role=${el?.role ?? "?"}|type=${type}`, 1]);
    out.push([`web:overlap=${countBucket(hits)}|type=${type}`, 1]);
    out.push([`web:overlap-share|type=${type}`, overlapShare(words, instruction)]);
    if (recent.some((a) => elementIdOf(a) === id)) out.push([`web:element-acted|type=${type}`, 1]);
  }
  if (type === "type" || type === "select") {
    const value = type === "type" ? action.text : action.value;
    out.push([`web:value-in-instruction|type=${type}`, overlapShare(tokens(value), instruction)]);
  }
  return out;
}

/** The paths a command names (arguments with a `/` or a `.`), by their last segment. */
function pathArgs(command: string): string[] {
  return command
    .trim()
    .split(/\s+/)
    .slice(1)
    .filter((a) => !a.startsWith("-") && /[/.]/.test(a) && a !== ">" && a !== "|")
    .map((a) => a.replace(/\/+$/, "").split("/").at(-1) ?? "")
    .filter((a) => a !== "" && a !== "~" && a !== ".");
}

/** The last segments of every whitespace-separated word of an output. */
function outputNames(stdout: unknown): Set<string> {
  return new Set(
    String(stdout ?? "")
      .split(/\s+/)
      .map((w) => w.replace(/\/+$/, "").split("/").at(-1) ?? "")
      .filter((w) => w !== ""),
  );
}

function exitBucket(context: PolicyContext): string {
  if (context.history.length === 0) return "none";
  const code = context.observation.data?.exitCode;
  return code === 0 ? "ok" : code === null || code === undefined ? "none" : "err";
}

/**
 * What a terminal candidate says: its verb (and the verb before it, and whether the last command
 * exited 0), its overlap with the instruction's words; whether the paths it names were printed by the
 * last command, by an earlier one, or named by a recent command; for `done`, whether it gives an answer.
 */
function terminalFeatures(
  context: PolicyContext,
  action: Action,
  instruction: ReadonlySet<string>,
  recent: ReadonlyArray<Action>,
): Array<[string, number]> {
  const exit = exitBucket(context);
  if (action.type === "done") {
    const out: Array<[string, number]> = [[`term:done|last-exit=${exit}`, 1]];
    if (action.answer !== undefined)
      out.push(["term:done-answer", 1], [`term:done-answer|last-exit=${exit}`, 1]);
    return out;
  }
  if (action.type !== "shell") return [];
  const verb = action.command.trim().split(/\s+/)[0] ?? "";
  const last = recent.at(-1);
  const lastVerb = last?.type === "shell" ? (last.command.trim().split(/\s+/)[0] ?? "") : "-";
  const words = tokens(action.command.replace(/[~/._-]+/g, " "));
  const hits = words.filter((w) => instruction.has(w)).length;
  const out: Array<[string, number]> = [
    [`term:verb=${verb}`, 1],
    [`term:verb=${verb}|after=${lastVerb}`, 1],
    [`term:verb=${verb}|last-exit=${exit}`, 1],
    [`term:overlap=${countBucket(hits)}`, 1],
    [`term:overlap-share`, overlapShare(words, instruction)],
  ];
  const paths = pathArgs(action.command);
  if (paths.length === 0) return out;
  const lastOutput = context.history.length > 0 ? outputNames(context.observation.data?.stdout) : new Set();
  const earlier = new Set(
    context.history.slice(1).flatMap((h) => [...outputNames(h.observation.data?.stdout)]),
  );
  const named = new Set(recent.flatMap((a) => (a.type === "shell" ? pathArgs(a.command) : [])));
  const share = (set: ReadonlySet<unknown>) => paths.filter((p) => set.has(p)).length / paths.length;
  out.push(
    [`term:path-in-last-output|verb=${verb}`, share(lastOutput)],
    [`term:path-in-earlier-output|verb=${verb}`, share(earlier)],
    [`term:path-named-recently|verb=${verb}`, share(named)],
  );
  return out;
}

/**
 * The linear policy's features of one candidate: its type and the step bucket, whether it repeats the
 * last action or one of the recent ones; on grid and board families the action itself and the pair
 * (last action, action), and on FrozenLake the local tiles of `frozenlake-features.ts`; on the web
 * the element's role, its name/value overlap with the instruction and whether it was acted on; on
 * the terminal the command verb (and the verb before it) and its overlap with the instruction's words.
 */
export function linearFeatures(context: PolicyContext, action: Action): Features {
  const type = action.type;
  const key = actionKey(action);
  const recent = recentActions(context);
  const lastKey = recent.length > 0 ? actionKey(recent[recent.length - 1] as Action) : "-";
  const instruction = new Set(tokens(context.observation.instruction ?? context.task.instruction));
  const out: Array<[string, number]> = [
    ["bias", 1],
    [`type=${type}`, 1],
    [`step=${stepBucket(context.stepIndex)}|type=${type}`, 1],
  ];
  if (key === lastKey) out.push([`repeat-last|type=${type}`, 1]);
  if (recent.some((a) => actionKey(a) === key)) out.push([`repeat-recent|type=${type}`, 1]);
  const family = familyOf(context);
  if (context.observation.legalActions && context.observation.legalActions.length > 0) {
    out.push([`action=${key}`, 1], [`last=${lastKey}|action=${key}`, 1]);
    if (family === "frozenlake") out.push(...frozenLakeFeatures(context, action));
  } else if (family === "terminal") {
    out.push(...terminalFeatures(context, action, instruction, recent));
  } else {
    out.push(...webFeatures(context, action, instruction, recent));
  }
  return out;
}
