// ENVS verified search on FrozenLake, recorded in a SQLite run store, then the balanced SFT export
// of the verified steps (TRL format). The base policy is a partly competent stand-in for a model:
// the environment's solver with probability 0.6, else a seeded uniform move.
// Run from a checkout: node --conditions=rehearsal-source --import tsx examples/search-and-export.ts [OUT_DIR]
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Action,
  createFrozenLakeEnvironment,
  createRuntime,
  exportSft,
  openSqliteStore,
  type Policy,
  runSearch,
  SearchConfigSchema,
  SFT_EXPORT_DEFAULTS,
} from "rehearsal";

const moves: Action[] = (["left", "down", "right", "up"] as const).map((direction) => ({
  type: "move",
  direction,
}));

/** The solver's move with probability `skill`, else a uniform one (randomness comes from `random`). */
function partlySkilled(skill: number): Policy {
  return {
    name: `partly-skilled-${skill}`,
    async propose(context, { n, random }) {
      const solved = context.oracle ? await context.oracle() : null;
      const candidates = Array.from({ length: n }, () => {
        const action = solved && random.next() < skill ? solved : random.pick(moves);
        return { action, raw: JSON.stringify(action) };
      });
      return { candidates };
    },
  };
}

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "rehearsal-example-"));
const store = openSqliteStore({ dir: join(dir, "store") });
const runId = "example-search";
const config = SearchConfigSchema.parse({ maxLiveEnvs: 2 });
const envs = Array.from({ length: config.maxLiveEnvs }, () =>
  createFrozenLakeEnvironment({ slippery: false }),
);
const tasks = ["4x4", "random-5-3"].map((id) => envs[0]!.suite.get(id));
store.createRun({ id: runId, kind: "search", seed: "7", config: {}, codeVersion: "example", createdAtMs: 0 });
for (const task of tasks) store.putTask(runId, task);

const result = await runSearch(
  { envs, policy: partlySkilled(0.6), runtime: createRuntime({ seed: "7" }), store },
  { runId, seed: "7", tasks, config },
);
for (const [i, task] of tasks.entries()) {
  const stats = result.tasks[i]!.stats;
  console.log(`${task.id}: ${JSON.stringify(stats)}`);
}

const out = join(dir, "sft.jsonl");
const report = exportSft(store, { ...SFT_EXPORT_DEFAULTS, runId, out });
const first = JSON.parse(readFileSync(out, "utf8").split("\n")[0] ?? "{}") as { messages?: unknown[] };
console.log(`${report.records} SFT records in ${out}; the first has ${first.messages?.length ?? 0} messages`);
for (const env of envs) await env.close();
store.close();
