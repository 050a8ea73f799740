import { resolve } from "node:path";
import type { Environment } from "../../core/index.ts";
import { discoveryAtMatchedSteps, evaluatePolicy } from "../../eval/index.ts";
import { exportSft } from "../../export/index.ts";
import { runSearch, SearchConfigSchema } from "../../search/index.ts";
import { codeVersion } from "../code-version.ts";
import { resolveRunConfig } from "../config.ts";
import { createCliRuntime, openCliStore } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { formatPercent, type Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";
import { createProgress } from "../progress.ts";
import { printSearchSummary } from "./search-summary.ts";

const DEFAULT_TASKS = [
  "click-checkboxes",
  "login-user",
  "enter-password",
  "settings-toggles",
  "shop-buy",
  "form-wizard",
];

export interface EnvsDemoFlags {
  store: string;
  rollouts: string;
  tasks?: string;
  maxNodes: string;
  out: string;
  seed: string;
}

/**
 * The ENVS pipeline on embedded defaults: verified search over a handful of built-in web tasks with the
 * heuristic policy, the balanced SFT export, an evaluation of the same base policy, and the search's
 * discovery rate beside base pass@1 / pass@8 and the base policy at matched environment steps.
 */
export async function runEnvsDemo(o: Output, flags: EnvsDemoFlags): Promise<void> {
  const config = resolveRunConfig(
    {},
    {
      env: "web",
      tasks: flags.tasks ? flags.tasks.split(",").map((s) => s.trim()) : DEFAULT_TASKS,
      policy: "heuristic",
      episodes: Number(flags.rollouts),
      seed: flags.seed,
      store: flags.store,
      search: { maxLiveEnvs: 2, maxNodesPerTree: Number(flags.maxNodes) },
    },
    "demo",
  );
  const searchConfig = SearchConfigSchema.parse(config.search);
  const runtime = createCliRuntime(config.seed);
  const store = openCliStore(config.store);
  const envs: Environment[] = [];
  try {
    for (let i = 0; i < searchConfig.maxLiveEnvs; i++)
      envs.push(await createEnvironmentFromConfig(config, runtime));
    const env = envs[0] as Environment;
    const tasks = selectTasks(env.suite, config.tasks);
    const policy = await createPolicyFromConfig(config, runtime);

    o.line(
      `1/3 search: ${tasks.length} web tasks, heuristic policy, ≤ ${searchConfig.maxNodesPerTree} nodes per tree`,
    );
    const searchId = runtime.ids.next("search");
    store.createRun({
      id: searchId,
      kind: "search",
      seed: config.seed,
      config: { ...config, search: searchConfig },
      codeVersion: codeVersion(),
      createdAtMs: runtime.clock.nowMs(),
    });
    const progress = createProgress(tasks.length, {
      json: o.json,
      label: "search",
      format: "search [{bar}] {value}/{total} tasks | {task} leaves {leaves} successes {successes}",
    });
    const search = await runSearch(
      {
        envs,
        policy,
        runtime,
        store,
        onProgress: (p) =>
          progress.update(p.tasksDone, { task: p.taskId, leaves: p.leaves, successes: p.successes }),
      },
      { runId: searchId, seed: config.seed, tasks, config: searchConfig },
    );
    progress.stop();
    store.updateRun(searchId, { status: "complete", updatedAtMs: runtime.clock.nowMs() });
    printSearchSummary(
      o,
      { runId: searchId, status: "complete", results: search.tasks },
      { asResult: false },
    );

    o.line(`\n2/3 export: balanced SFT file (TRL conversational, β 0.5, w_max 2) → ${flags.out}`);
    const sft = exportSft(store, {
      runId: searchId,
      out: resolve(flags.out),
      format: "trl",
      observation: "axtree",
      window: 1,
      historyLength: 5,
      beta: 0.5,
      wMax: 2,
      materializeWeights: false,
      seed: config.seed,
    });
    o.line(`${sft.records} step examples from ${sft.perTask.filter((t) => t.records > 0).length} tasks`);

    o.line(`\n3/3 eval: the base heuristic policy, ${config.episodes} rollouts per task at T=1`);
    const evalId = runtime.ids.next("eval");
    store.createRun({
      id: evalId,
      kind: "eval",
      seed: config.seed,
      config,
      codeVersion: codeVersion(),
      createdAtMs: runtime.clock.nowMs(),
    });
    for (const t of tasks) store.putTask(evalId, t);
    const evaluation = await evaluatePolicy(
      { env, policy, runtime, store },
      { runId: evalId, tasks, rollouts: config.episodes, temperature: 1, seed: config.seed, ks: [1, 8] },
    );
    store.updateRun(evalId, {
      status: "complete",
      summary: { pass: evaluation.pass },
      updatedAtMs: runtime.clock.nowMs(),
    });

    const comparison = discoveryAtMatchedSteps(
      search.tasks.map((t) => ({
        taskId: t.stats.taskId,
        tier: t.stats.tier,
        successes: t.stats.successes,
        envSteps: t.counters.envSteps,
      })),
      evaluation.perTask,
    );
    o.result({
      searchRunId: searchId,
      evalRunId: evalId,
      search: search.tasks.map((t) => t.stats),
      sft: { out: sft.out, records: sft.records, perTask: sft.perTask },
      eval: evaluation.pass,
      comparison,
    });
    o.line(
      "\nsearch discovery vs the base policy (matched environment steps: m = search steps / mean episode length)",
    );
    o.table(
      [
        "tier",
        "tasks",
        "search: ≥1 verified success",
        "search env steps / task",
        "base at matched steps",
        "base pass@1",
        "base pass@8",
      ],
      comparison.map((r) => [
        r.tier,
        r.tasks,
        formatPercent(r.searchDiscovery),
        r.searchStepsPerTask.toFixed(0),
        `${formatPercent(r.baseAtMatchedSteps)}${r.extrapolated > 0 ? ` (${r.extrapolated} extrap.)` : ""}`,
        formatPercent(r.basePass1),
        formatPercent(r.basePass8),
      ]),
    );
    o.line(`store: ${config.store} (search ${searchId}, eval ${evalId}); SFT: ${sft.out}`);
  } finally {
    for (const e of envs) await e.close();
    store.close();
  }
}
