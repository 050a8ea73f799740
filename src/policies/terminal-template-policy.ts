import type { Action, Candidate, Observation, Policy, PolicyContext, Random } from "../core/index.ts";

/**
 * A model-free terminal policy: commands from a small grammar (`ls`, `cat`, `find`, `grep`, `mkdir`,
 * `cp`, `mv`, `rm`, `echo >`, `sed -i`, `wc`, `head`, `cd`, `done`) filled with names taken from the
 * instruction and from the outputs seen so far. Each filled command has a score (exploring first,
 * editing later, repeats penalised); candidates are drawn by softmax(score / temperature), so
 * temperature 0 is greedy and higher temperatures spread over the grammar.
 */

const PATH_LIKE = /(?:~\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\/?/g;
const EXT = /\.([A-Za-z0-9]{1,5})\b/g;
const CODE = /\b[A-Z0-9]{5,8}\b/g;
const KEY_VALUE = /\bset ([a-z_]+) to ([A-Za-z0-9.]+)/g;

interface Names {
  files: string[];
  dirs: string[];
  exts: string[];
  words: string[];
  keyValues: Array<[string, string]>;
}

function uniq(items: Iterable<string>, max = 12): string[] {
  return [...new Set(items)].slice(0, max);
}

/** Names a command can use, from the instruction and every output seen in the episode. */
export function namesOf(context: PolicyContext): Names {
  const instruction = context.observation.instruction ?? context.task.instruction;
  const outputs = [...context.history.map((h) => h.observation), context.observation].map((o: Observation) =>
    String(o.data?.stdout ?? ""),
  );
  const tokens = [instruction, ...outputs].flatMap((t) => [...t.matchAll(PATH_LIKE)].map((m) => m[0]));
  const cleaned = tokens.map((t) => t.replace(/^~\//, "").replace(/^\.\//, "")).filter((t) => t.length > 1);
  const files = uniq(
    cleaned.filter((t) => /\.[A-Za-z0-9]{1,5}$/.test(t) && !t.startsWith(".")),
    16,
  );
  const dirs = uniq(
    cleaned
      .filter((t) => t.endsWith("/") || (!t.includes(".") && /^[a-z][a-z0-9_-]*$/.test(t)))
      .map((t) => t.replace(/\/$/, "")),
    10,
  );
  const exts = uniq(
    [...instruction.matchAll(EXT)].map((m) => m[1] as string),
    4,
  );
  const words = uniq(
    [...instruction.matchAll(CODE)].map((m) => m[0]),
    4,
  );
  const keyValues = [...instruction.matchAll(KEY_VALUE)].map((m) => [m[1], m[2]] as [string, string]);
  return { files, dirs, exts, words, keyValues };
}

interface Scored {
  action: Action;
  score: number;
}

const shell = (command: string, score: number): Scored => ({ action: { type: "shell", command }, score });

/** Every command of the grammar that the known names fill, with its prior score. */
export function templateCommands(context: PolicyContext): Scored[] {
  const n = namesOf(context);
  const step = context.stepIndex;
  const explore = step < 3 ? 2 : 0.5;
  const edit = step < 2 ? 0.2 : 1;
  const out: Scored[] = [shell("ls", explore + 0.5), shell("ls -R", explore + 0.3), shell("pwd", 0)];
  for (const d of n.dirs) {
    out.push(shell(`ls ${d}`, explore), shell(`find ${d}`, explore), shell(`cd ${d}`, 0.3));
    out.push(shell(`mkdir -p ${d}`, edit * 0.6));
    for (const e of n.exts) out.push(shell(`find ${d} -name '*.${e}'`, explore + 0.2));
    for (const w of n.words) out.push(shell(`grep -rl ${w} ${d}`, explore + 0.5));
  }
  for (const f of n.files) {
    out.push(shell(`cat ${f}`, explore), shell(`head ${f}`, 0.4), shell(`wc -l ${f}`, 0.4));
    out.push(shell(`rm ${f}`, edit * 0.2));
    for (const g of n.files) if (g !== f) out.push(shell(`cp ${f} ${g}`, edit * 0.5));
    for (const d of n.dirs) out.push(shell(`mv ${f} ${d}/`, edit * 0.5), shell(`cp ${f} ${d}/`, edit * 0.4));
    for (const w of n.words) out.push(shell(`echo ${w} > ${f}`, edit * 0.3));
    for (const [k, v] of n.keyValues) out.push(shell(`sed -i 's/^${k}=.*/${k}=${v}/' ${f}`, edit * 1.5));
  }
  out.push({ action: { type: "done" }, score: step < 3 ? -2 : step * 0.1 });
  const recent = new Set(
    context.history.slice(-6).flatMap((h) => (h.action?.type === "shell" ? [h.action.command] : [])),
  );
  return out.map((s) =>
    s.action.type === "shell" && recent.has(s.action.command) ? { ...s, score: s.score - 3 } : s,
  );
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
