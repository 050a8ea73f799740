import { resolve } from "node:path";
import { discoveryAtMatchedSteps } from "../../eval/index.ts";
import { exportSft, SFT_EXPORT_DEFAULTS } from "../../export/index.ts";
import { executeEval, executeSearch, resolveRunConfig } from "../../runner/index.ts";
import { type CliContext, warnIfInterrupted, withRunner } from "../context.ts";
import { type DemoProfile, WEB_DEMO } from "../demo-profiles.ts";
import { createProgress } from "../progress.ts";
import { printDiscovery } from "./demo-summary.ts";
import { printSearchSummary } from "./search-summary.ts";

export interface EnvsDemoFlags {
  store: string;
  rollouts: string;
  tasks?: string;
  maxNodes: string;
  out: string;
  seed: string;
}

/**
 * The ENVS pipeline on embedded defaults: verified search over built-in tasks with the profile's
 * model-free policy (web: a handful of tasks, heuristic policy; terminal: the whole suite, template
 * policy), the balanced SFT export, an evaluation of the same base policy, and the search's discovery
 * rate beside base pass@1 / pass@8 and the base policy at matched environment steps, per tier.
 */
export async function runEnvsDemo(
  ctx: CliContext,
  flags: EnvsDemoFlags,
  profile: DemoProfile = WEB_DEMO,
): Promise<void> {
  const o = ctx.out();
  const config = resolveRunConfig(
    {},
    {
      env: profile.env,
      tasks: flags.tasks ? flags.tasks.split(",").map((s) => s.trim()) : await profile.tasks(),
      policy: profile.policy,
      episodes: Number(flags.rollouts),
      seed: flags.seed,
      store: flags.store,
      search: { maxLiveEnvs: 2, maxNodesPerTree: Number(flags.maxNodes) },
    },
    "demo",
    { episodes: "--rollouts" },
  );
  await withRunner(ctx, config.store, config.seed, async (deps) => {
    const tasks = config.tasks as string[];
    o.line(
      `1/3 search: ${tasks.length} ${profile.label}, ${profile.policy} policy, ≤ ${flags.maxNodes} nodes per tree`,
    );
    const progress = createProgress(tasks.length, {
      json: o.json,
      label: "search",
      format: "search [{bar}] {value}/{total} tasks | {task} leaves {leaves} successes {successes}",
    });
    const search = await executeSearch(deps, {
      config,
      storeDir: config.store,
      onProgress: (p) =>
        progress.update(p.tasksDone, { task: p.taskId, leaves: p.leaves, successes: p.successes }),
    }).finally(() => progress.stop());
    printSearchSummary(
      o,
      { runId: search.runId, status: search.status, results: search.results },
      { asResult: false },
    );
    warnIfInterrupted(o, { status: search.status, kind: "search", id: search.runId }, config.store);
    if (search.status === "interrupted") return;

    o.line(`\n2/3 export: balanced SFT file (TRL conversational, β 0.5, w_max 2) → ${flags.out}`);
    const sft = exportSft(deps.store, {
      ...SFT_EXPORT_DEFAULTS,
      runId: search.runId,
      out: resolve(flags.out),
      seed: config.seed,
    });
    o.line(`${sft.records} step examples from ${sft.perTask.filter((t) => t.records > 0).length} tasks`);

    o.line(`\n3/3 eval: the base ${profile.policy} policy, ${config.episodes} rollouts per task at T=1`);
    const evaluation = await executeEval(deps, { config, ks: [1, 8], entropy: { states: 0, samples: 0 } });
    warnIfInterrupted(o, { status: evaluation.status, kind: "eval", id: evaluation.runId }, config.store);
    const comparison = discoveryAtMatchedSteps(
      search.results.map((t) => ({
        taskId: t.stats.taskId,
        tier: t.stats.tier,
        successes: t.stats.successes,
        envSteps: t.counters.envSteps,
      })),
      evaluation.report.perTask,
    );
    o.result({
      searchRunId: search.runId,
      evalRunId: evaluation.runId,
      search: search.results.map((t) => t.stats),
      sft: { out: sft.out, records: sft.records, perTask: sft.perTask },
      eval: evaluation.report.pass,
      comparison,
    });
    printDiscovery(o, comparison);
    o.line(`store: ${config.store} (search ${search.runId}, eval ${evaluation.runId}); SFT: ${sft.out}`);
  });
}
