import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { UserError } from "../../core/index.ts";
import { evaluatePolicy } from "../../eval/index.ts";
import { SearchConfigSchema } from "../../search/index.ts";
import { codeVersion } from "../code-version.ts";
import { defaultPolicyFor, readConfigFile, resolveRunConfig } from "../config.ts";
import { createCliRuntime, openCliStore } from "../context.ts";
import { createEnvironmentFromConfig, selectTasks } from "../environments.ts";
import { floatOption, intOption, listOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";
import { createPolicyFromConfig } from "../policies.ts";
import { createProgress } from "../progress.ts";
import { markRunFailed } from "../run-status.ts";
import { runNoisyEval } from "./eval-noise.ts";

interface EvalFlags {
  config?: string;
  env?: string;
  suite?: string;
  tasksDir?: string;
  tasks?: string[] | "all";
  policy?: string;
  rollouts: number;
  k: number[];
  temperature: number;
  maxSteps?: number;
  seed?: string;
  store?: string;
  entropyStates: number;
  entropySamples: number;
  noise?: string;
  schedule?: string;
  policies?: string[];
}

function kList(value: string): number[] {
  const ks = value.split(",").map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1))
    throw new InvalidArgumentError(`expected comma-separated whole numbers ≥ 1, got '${value}'`);
  return ks;
}

export function registerEval(program: Command, out: () => Output): void {
  program
    .command("eval")
    .description("evaluate a policy: n rollouts per task, pass@k (unbiased), pass^k, action entropy")
    .option("-c, --config <file>", "YAML or JSON config file")
    .option("--env <name>", "environment: web | frozenlake")
    .option("--suite <name>", "task suite (web: builtin)")
    .option("--tasks-dir <dir>", "a directory of MiniWoB++-protocol pages (web)")
    .option("--tasks <ids>", "comma-separated task ids, or all", listOption)
    .option("--policy <name>", "heuristic | random | oracle | llm")
    .option("--rollouts <n>", "rollouts per task", intOption, 8)
    .option("--k <list>", "k values for pass@k and pass^k", kList, [1, 8])
    .option("--temperature <t>", "sampling temperature", floatOption, 1)
    .option("--max-steps <n>", "horizon (default: the task's)", intOption)
    .option("--seed <seed>", "root seed")
    .option("--entropy-states <n>", "states sampled for action entropy (0 = off)", intOption, 20)
    .option("--entropy-samples <k>", "samples per state for action entropy", intOption, 8)
    .option("--store <dir>", "run store directory")
    .option(
      "--noise <set>",
      "also evaluate under noise: heldout = one held-out perturbation per task, next to the clean run",
    )
    .option("--schedule <file>", "precomputed noise schedule (rehearsal noise schedule); default: computed")
    .option("--policies <names>", "with --noise: policies to compare (cross-evaluation table)", listOption)
    .action(async (flags: EvalFlags) => {
      if (flags.noise !== undefined && flags.noise !== "heldout") {
        throw new UserError("cli.invalid_option", `--noise takes "heldout", got "${flags.noise}"`);
      }
      if (flags.noise === undefined && (flags.schedule !== undefined || flags.policies !== undefined)) {
        throw new UserError("cli.invalid_option", "--schedule and --policies need --noise heldout");
      }
      const o = out();
      const fileOptions = flags.config ? readConfigFile(flags.config) : {};
      const envName = flags.env ?? fileOptions.env;
      const config = resolveRunConfig(
        fileOptions,
        {
          env: flags.env,
          suite: flags.suite,
          tasksDir: flags.tasksDir,
          tasks: flags.tasks,
          policy: flags.policy ?? (fileOptions.policy === undefined ? defaultPolicyFor(envName) : undefined),
          seed: flags.seed,
          store: flags.store,
          episodes: flags.rollouts,
          temperature: flags.temperature,
          maxSteps: flags.maxSteps,
        },
        flags.config ?? "options",
      );
      const runtime = createCliRuntime(config.seed);
      const store = openCliStore(config.store);
      const env = await createEnvironmentFromConfig(config, runtime);
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      let runId: string | undefined;
      try {
        const tasks = selectTasks(env.suite, config.tasks);
        const ks = [...new Set(flags.k)].sort((a, b) => a - b);
        if (flags.noise === "heldout") {
          await runNoisyEval(
            {
              config,
              env,
              tasks,
              store,
              runtime,
              policies: flags.policies ?? [config.policy],
              ks,
              ...(flags.schedule ? { scheduleFile: flags.schedule } : {}),
              signal: controller.signal,
              runIdPrefix: runtime.ids.next("eval"),
            },
            o,
          );
          return;
        }
        const policy = await createPolicyFromConfig(config, runtime);
        runId = runtime.ids.next("eval");
        store.createRun({
          id: runId,
          kind: "eval",
          seed: config.seed,
          config,
          codeVersion: codeVersion(),
          createdAtMs: runtime.clock.nowMs(),
        });
        for (const t of tasks) store.putTask(runId, t);
        const progress = createProgress(tasks.length * config.episodes, { json: o.json, label: "rollouts" });
        const defaults = SearchConfigSchema.parse({});
        const report = await evaluatePolicy(
          {
            env,
            policy,
            runtime,
            store,
            signal: controller.signal,
            onEpisode: (done) => progress.update(done),
          },
          {
            runId,
            tasks,
            rollouts: config.episodes,
            temperature: config.temperature,
            seed: config.seed,
            ks,
            ...(config.maxSteps ? { maxSteps: config.maxSteps } : {}),
            entropy: {
              states: flags.entropyStates,
              samples: flags.entropySamples,
              temperature: 1,
              gridPx: defaults.gridPx,
              typeTextChars: defaults.typeTextChars,
            },
          },
        );
        progress.stop();
        store.updateRun(runId, {
          status: report.interrupted ? "interrupted" : "complete",
          summary: { pass: report.pass, entropyBits: report.entropy?.meanBits ?? null },
          updatedAtMs: runtime.clock.nowMs(),
        });
        await policy.close?.();
        o.result({
          ...report,
          policy: policy.name,
          rollouts: config.episodes,
          temperature: config.temperature,
        });
        o.line(
          `eval ${runId} — policy ${policy.name}, ${config.episodes} rollouts per task at T=${config.temperature}`,
        );
        o.table(
          ["group", "tasks", ...ks.map((k) => `pass@${k}`), ...ks.map((k) => `pass^${k}`)],
          report.pass.map((p) => [
            p.group,
            p.tasks,
            ...ks.map((k) => formatPercent(p.passAt[k] ?? 0)),
            ...ks.map((k) => formatPercent(p.passHat[k] ?? 0)),
          ]),
        );
        o.table(
          ["task", "split", "tier", "n", "successes", "infra failed", "mean steps"],
          report.perTask.map((t) => [
            t.taskId,
            t.split,
            t.tier,
            t.n,
            t.c,
            t.infraFailed,
            t.meanSteps.toFixed(2),
          ]),
        );
        if (report.entropy)
          o.line(
            `action entropy: ${report.entropy.meanBits.toFixed(3)} bits over ${report.entropy.states} states (${report.entropy.samples} samples each, T=1)`,
          );
      } catch (e) {
        if (runId) markRunFailed(store, runId, runtime, e);
        throw e;
      } finally {
        process.off("SIGINT", onSigint);
        await env.close();
        store.close();
      }
    });
}
