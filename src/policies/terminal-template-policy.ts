import type { Action, Candidate, Policy, PolicyContext, Random } from "../core/index.ts";
import {
  type InstructionNames,
  instructionNames,
  looksLikeFile,
  pathLines,
  uniq,
} from "./terminal/instruction-names.ts";
import { intentCommands, latestSearch } from "./terminal/intent-commands.ts";

/**
 * A model-free terminal policy: commands from a small grammar filled with names read from the
 * instruction (paths `~/x` split into sources and destinations, bare extensions, upper-case codes,
 * numbers, quoted field lists, `set k to v`, `x > N`, `the x column`) and from the outputs seen so far
 * (paths a listing printed, a table header). Two layers: intent templates that follow from the
 * instruction's verbs (copy what a grep found, rename/delete/move/count by extension, count matching
 * lines into a file, set a config key, dedupe in place, cut a column, filter rows by a comparison) and
 * an exploring grammar (`ls`, `ls -R`, `find`, `cat`, `head`, `wc -l`, `grep -rl`, `mkdir -p`, `cp`,
 * `mv`, `rm`, `echo >`, `cd`). `done` is favoured right after a command that looks like it completed
 * the instruction (with the last output as the answer when the instruction asks a question).
 * Candidates are drawn by softmax(score / temperature): 0 is greedy. Randomness comes only from
 * `options.random`; the policy reads only the observation and the episode's history.
 */

interface Scored {
  action: Action;
  score: number;
}

const shell = (command: string, score: number): Scored => ({ action: { type: "shell", command }, score });

function instructionOf(context: PolicyContext): string {
  return context.observation.instruction ?? context.task.instruction;
}

function outputsOf(context: PolicyContext): string[] {
  return [...context.history.map((h) => h.observation), context.observation]
    .slice(1)
    .map((o) => String(o.data?.stdout ?? ""));
}

/** Names a command can use, from the instruction and every output seen in the episode. */
export function namesOf(context: PolicyContext): InstructionNames & { seenFiles: string[] } {
  const names = instructionNames(instructionOf(context));
  const seenFiles = uniq(outputsOf(context).flatMap(pathLines), 12);
  return { ...names, seenFiles };
}

/** Each command of the episode with the stdout it printed, oldest first. */
function stepsOf(context: PolicyContext): Array<{ command: string | undefined; output: string }> {
  const after = [...context.history.slice(1).map((h) => h.observation), context.observation];
  return context.history.map((h, i) => ({
    command: h.action?.type === "shell" ? h.action.command : undefined,
    output: String(after[i]?.data?.stdout ?? ""),
  }));
}

function lastShellCommand(context: PolicyContext): string | undefined {
  const last = context.history.at(-1)?.action;
  return last?.type === "shell" ? last.command : undefined;
}

const QUESTION = /\bhow many\b|\breply done\b|\bas the answer\b|\bwhat is\b/;

/** The commands the instruction's grammar fills, with prior scores, before repeat penalties. */
function grammar(context: PolicyContext): { scored: Scored[]; finals: Set<string> } {
  const n = namesOf(context);
  const outputs = outputsOf(context);
  const step = context.stepIndex;
  const explore = step < 2 ? 2 : 0.5;
  const edit = step < 1 ? -1 : 0;
  const out: Scored[] = [shell("ls", explore), shell("ls -R", explore + 0.5), shell("pwd", -1)];
  const finals = new Set<string>();
  for (const c of intentCommands(n, {
    outputs,
    lastCommand: lastShellCommand(context),
    searchOutput: latestSearch(stepsOf(context)),
  })) {
    out.push(shell(c.command, c.score));
    if (c.final) finals.add(c.command);
  }
  const dirs = n.paths.filter((p) => !looksLikeFile(p));
  const files = uniq([...n.sources.filter(looksLikeFile), ...n.seenFiles], 12);
  for (const d of dirs) out.push(shell(`ls ${d}`, explore - 0.5), shell(`find ${d}`, explore));
  for (const f of files) out.push(shell(`cat ${f}`, explore + 0.2), shell(`wc -l ${f}`, -0.5));
  for (const d of n.dests.filter((p) => !looksLikeFile(p))) out.push(shell(`mkdir -p ${d}`, edit + 0.5));
  for (const g of n.dests.filter(looksLikeFile)) {
    for (const w of [...n.words, ...n.numbers].slice(0, 3)) out.push(shell(`echo ${w} > ${g}`, edit));
    for (const f of files.slice(0, 4)) if (f !== g) out.push(shell(`cp ${f} ${g}`, edit - 0.5));
  }
  for (const f of n.seenFiles.slice(0, 4)) {
    out.push(shell(`rm ${f}`, edit - 1.5));
    for (const d of dirs) out.push(shell(`mv ${f} ${d}/`, edit - 1));
  }
  return { scored: out, finals };
}

/** Whether the grammar of the step before proposed `command` as one that completes the instruction. */
function wasFinal(context: PolicyContext, command: string): boolean {
  const before = context.history.at(-1);
  if (!before) return false;
  const previous: PolicyContext = {
    task: context.task,
    observation: before.observation,
    history: context.history.slice(0, -1),
    stepIndex: Math.max(0, context.stepIndex - 1),
  };
  return grammar(previous).finals.has(command);
}

/** Every command of the grammar that the known names fill, with its score (repeats penalised, `done` placed). */
export function templateCommands(context: PolicyContext): Scored[] {
  const { scored, finals } = grammar(context);
  const step = context.stepIndex;
  const lastCommand = lastShellCommand(context);
  const exitCode = Number(context.observation.data?.exitCode ?? 1);
  const stdout = String(context.observation.data?.stdout ?? "").trim();
  const question = QUESTION.test(instructionOf(context).toLowerCase());
  const finished = lastCommand !== undefined && exitCode === 0 && wasFinal(context, lastCommand);
  const done: Scored[] = [];
  if (question && lastCommand !== undefined && exitCode === 0 && /^\S{1,40}$/.test(stdout)) {
    const counted = /\bwc -l\b|\bgrep -c/.test(lastCommand);
    done.push({ action: { type: "done", answer: stdout }, score: counted ? 8.5 : 1 });
  }
  done.push({
    action: { type: "done" },
    score: finished && !question ? 8.5 : step < 3 ? -3 : step * 0.1 - 1,
  });
  const ran = context.history.flatMap((h) => (h.action?.type === "shell" ? [h.action.command] : []));
  const recent = new Set(ran.slice(-6));
  const everRan = new Set(ran);
  const penalised = scored.map((s) => {
    if (s.action.type !== "shell") return s;
    const c = s.action.command;
    if (finals.has(c) && everRan.has(c)) return { ...s, score: s.score - 6 };
    return recent.has(c) ? { ...s, score: s.score - 3 } : s;
  });
  return [...penalised, ...done];
}

function sample(scored: ReadonlyArray<Scored>, temperature: number, random: Random): Action {
  if (temperature <= 0) {
    let best = scored[0] as Scored;
    for (const s of scored) if (s.score > best.score) best = s;
    return best.action;
  }
  const top = Math.max(...scored.map((s) => s.score));
  return (scored[random.weighted(scored.map((s) => Math.exp((s.score - top) / temperature)))] as Scored)
    .action;
}

/** The command-template policy (`--policy template`): offline, seeded through `options.random`. */
export function createTerminalTemplatePolicy(): Policy {
  return {
    name: "template",
    async propose(context, options) {
      const scored = templateCommands(context);
      const candidates: Candidate[] = [];
      for (let i = 0; i < options.n; i++) {
        const action = sample(scored, options.temperature, options.random);
        candidates.push({ action, raw: JSON.stringify(action) });
      }
      return { candidates };
    },
  };
}
