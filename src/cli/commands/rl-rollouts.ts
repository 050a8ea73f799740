import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { RolloutGroupOptions, RolloutGroupsReport, rolloutMetrics } from "../../rl/index.ts";
import type { RunnerDeps } from "../../runner/run-session.ts";
import { type CliContext, withRunner } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";
import { printInfraFailures } from "./run-summary.ts";

interface RolloutFlags extends ConfigFlags {
  group: number;
  minGroup: number;
  tMax: number;
  temperature?: number;
  alpha?: number;
  beta?: number;
  gamma?: number;
  scaling?: string;
  wm?: string;
  wmCandidates?: number;
  wmCap?: number;
}

type RlMetrics = ReturnType<typeof rolloutMetrics>;

/** `--wm perfect`: the base policy wrapped by `wm-lookahead` over the environment's snapshots. */
interface WmSpec {
  model: "perfect";
  candidates: number;
  cap: number;
}

async function wmSpec(flags: RolloutFlags): Promise<WmSpec | undefined> {
  if (flags.wm === undefined) return undefined;
  if (flags.wm !== "perfect")
    throw new UserError(
      "rl.wm_model",
      `--wm ${flags.wm} is not a world model this command has; use --wm perfect (the environment's own snapshots)`,
    );
  const { parseWmLookaheadOptions } = await import("../../rl/index.ts");
  const o = parseWmLookaheadOptions({
    ...(flags.wmCandidates === undefined ? {} : { candidates: flags.wmCandidates }),
    ...(flags.wmCap === undefined ? {} : { cap: flags.wmCap }),
  });
  return { model: "perfect", ...o };
}

/** The validated rollout-group options of the flags (a bad value is a user error naming it). */
async function groupOptions(flags: RolloutFlags): Promise<RolloutGroupOptions> {
  const { RolloutGroupOptionsSchema } = await import("../../rl/index.ts");
  const weights = { alpha: flags.alpha, beta: flags.beta, gamma: flags.gamma };
  const r = RolloutGroupOptionsSchema.safeParse({
    group: flags.group,
    minGroup: flags.minGroup,
    tMax: flags.tMax,
    rewards: Object.fromEntries(Object.entries(weights).filter(([, v]) => v !== undefined)),
    advantages: flags.scaling === undefined ? {} : { scaling: flags.scaling },
  });
  if (r.success) return r.data;
  const flagOf = (path: ReadonlyArray<PropertyKey>) =>
    `--${String(path.at(-1)).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  throw new UserError(
    "rl.options",
    `invalid rl rollouts options: ${r.error.issues.map((i) => `${flagOf(i.path)}: ${i.message}`).join("; ")}`,
  );
}

/** Plays the groups as one run of kind "rl", scores them and stores the scores as the run summary's `rl`. */
async function executeRollouts(
  deps: RunnerDeps,
  config: Awaited<ReturnType<typeof configFromFlags>>,
  options: RolloutGroupOptions,
  wm: WmSpec | undefined,
) {
  const { withRunSession } = await import("../../runner/run-session.ts");
  const { episodeDeps } = await import("../../runner/episode-deps.ts");
  const { allInfraFailedError, episodeInfraFailures } = await import("../../runner/infra-failures.ts");
  const { summarizeEpisodes } = await import("../../rollout/index.ts");
  const { playRolloutGroups, rolloutMetrics, scoreRolloutGroups, snapshotWorldModel, wmLookaheadPolicy } =
    await import("../../rl/index.ts");
  return withRunSession(deps, { config }, async (session) => {
    const base = await session.policy();
    const policy = wm ? wmLookaheadPolicy(base, snapshotWorldModel(session.env), wm) : base;
    const runId = session.createRun("rl");
    const results = await playRolloutGroups(episodeDeps(session, policy), {
      runId,
      tasks: session.tasks,
      seed: config.seed,
      temperature: config.temperature,
      options,
    });
    const report = scoreRolloutGroups(session.store.iterateTrajectories(runId), options);
    const infraFailures = episodeInfraFailures(results);
    const summary = {
      ...summarizeEpisodes(results),
      infraFailures,
      policy: policy.name,
      ...(wm ? { wm } : {}),
      rl: report,
      metrics: rolloutMetrics(report),
    };
    const interrupted = results.length < session.tasks.length * options.group;
    if (!interrupted && summary.complete === 0 && infraFailures.count > 0)
      session.failRun(runId, summary, allInfraFailedError("rollouts", runId, infraFailures));
    const status = session.finishRun(runId, summary, interrupted);
    return { runId, status, summary };
  });
}

function printGroups(o: Output, runId: string, report: RolloutGroupsReport, metrics: RlMetrics): void {
  const row = (group: string, task: string, m: RlMetrics["all"]) => [
    group,
    task,
    m.trajectories,
    formatPercent(m.successRate),
    m.meanReward.toFixed(3),
    `${m.meanParts.success.toFixed(2)} / ${m.meanParts.length.toFixed(2)} / ${m.meanParts.wm.toFixed(2)}`,
    m.meanLength.toFixed(2),
    m.wmCallsPerTrajectory.toFixed(2),
  ];
  o.table(
    [
      "group",
      "task",
      "members",
      "success",
      "mean R",
      "R_success / R_L / R_WM",
      "mean length",
      "WM calls/traj",
    ],
    [...metrics.perGroup.map((g) => row(g.groupId, g.taskId, g)), row("all", "-", metrics.all)],
  );
  for (const d of report.dropped) o.line(`dropped group ${d.groupId}: ${d.reason}`);
  o.line(
    `${report.groups.length} group${report.groups.length === 1 ? "" : "s"} scored, ${report.dropped.length} dropped; rewards and advantages are in 'rehearsal runs show ${runId} --json' (summary.rl) and 'rehearsal rl export --run ${runId}'`,
  );
}

/** The weights of R = α·R_success + β·R_L + γ·R_WM, one flag each (a weight of 0 logs its part only). */
const REWARD_WEIGHT_FLAGS = [
  ["--alpha <w>", "weight of R_success (default 1.0)"],
  ["--beta <w>", "weight of the length reward R_L (default 0.5)"],
  ["--gamma <w>", "weight of the WM-call reward R_WM (default 0.1; 0 logs it only)"],
] as const;

export function registerRlRollouts(rl: Command, ctx: CliContext): void {
  const command = addConfigOptions(
    rl
      .command("rollouts")
      .description(
        "play G trajectories per task from one initial state; score composite rewards and GRPO advantages",
      ),
  )
    .option("--group <n>", "G, trajectories per task", positiveIntOption, 8)
    .option("--min-group <n>", "drop a group left with fewer scorable members", positiveIntOption, 2)
    .option("--t-max <n>", "step limit per trajectory (T_max, also L_max)", positiveIntOption, 15)
    .option("--temperature <t>", "policy sampling temperature", floatOption);
  for (const [flag, what] of REWARD_WEIGHT_FLAGS) command.option(flag, what, floatOption);
  command
    .option("--scaling <s>", "advantage scaling: group | batch | none (default group)")
    .option("--wm <model>", "wrap the policy in wm-lookahead with this world model: perfect (snapshots)")
    .option("--wm-candidates <n>", "wm-lookahead: candidates sampled per step (default 4)", positiveIntOption)
    .option("--wm-cap <n>", "wm-lookahead: world-model calls per step at most (default 5)", positiveIntOption)
    .action(async (flags: RolloutFlags) => {
      const o = ctx.out();
      const options = await groupOptions(flags);
      const wm = await wmSpec(flags);
      const config = await configFromFlags(
        flags,
        { episodes: options.group, maxSteps: options.tMax, temperature: flags.temperature },
        { policyByEnv: true },
      );
      const run = await withRunner(ctx, config.store, config.seed, (deps) =>
        executeRollouts(deps, config, options, wm),
      );
      o.result({
        runId: run.runId,
        status: run.status,
        env: config.env,
        policy: run.summary.policy,
        summary: run.summary,
      });
      o.line(
        `rl run ${run.runId} (${run.status}) — env ${config.env}, policy ${run.summary.policy}, G ${options.group}`,
      );
      printGroups(o, run.runId, run.summary.rl, run.summary.metrics);
      printInfraFailures(o, run.runId, run.summary.infraFailures, `${run.summary.episodes} rollouts`);
      if (run.status === "interrupted")
        o.warn(
          `run ${run.runId} interrupted; what completed is scored in 'rehearsal runs show ${run.runId}'`,
        );
    });
}
