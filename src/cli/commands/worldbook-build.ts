import { type Command, Option } from "commander";
import { UserError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";
import { positiveIntOption } from "../options.ts";
import { addTraceInputOptions } from "./worldbook-inputs.ts";

interface BuildFlags {
  runs?: string[] | "all";
  store: string;
  traces?: string[];
  out: string;
  splitSeed: string;
  split: string;
  groupBy: "episode" | "task";
  minSupport?: number;
  llm?: boolean;
  llmMaxRules: number;
}

/** `rehearsal worldbook build`: traces → split → worldbook (+ held-out traces) in `--out`. */
export function registerWorldbookBuild(worldbook: Command, ctx: CliContext): void {
  const command = worldbook
    .command("build")
    .description(
      "build a worldbook from traces: split by episode or task, induce from the build split, write the held-out splits' traces beside it",
    );
  addTraceInputOptions(command, {
    runs: "comma-separated run ids of the store to import",
    traces: "JSONL trace files (docs/traces.md)",
  })
    .requiredOption("--out <dir>", "the worldbook directory to write")
    .option("--split-seed <seed>", "seed of the grouped split", "0")
    .option("--split <fractions>", "build,validation,test fractions", "0.7,0.15,0.15")
    .addOption(
      new Option("--group-by <what>", "keep whole episodes or whole tasks in one split")
        .choices(["episode", "task"])
        .default("episode"),
    )
    .option(
      "--min-support <n>",
      "below this many transitions a rule is tentative (default 5)",
      positiveIntOption,
    )
    .option("--llm", "review tentative and conflicted rules with an LLM (REHEARSAL_LLM_* variables)")
    .option("--llm-max-rules <n>", "review at most this many rules", positiveIntOption, 100)
    .action(async (flags: BuildFlags) => {
      const o = ctx.out();
      if (flags.runs === "all")
        throw new UserError(
          "worldbook.bad_runs",
          "worldbook build: --runs takes run ids, not 'all'. Fix: --runs ID,ID",
        );
      const { loadTraceInputs, parseSplitFlag } = await import("./worldbook-inputs.ts");
      const fractions = await parseSplitFlag(flags.split);
      const wm = await import("../../worldmodel/index.ts");
      const { printBuild, writeBuild } = await import("./worldbook-build-output.ts");
      const inputs = await loadTraceInputs({ ...flags, runs: flags.runs });
      const split = wm.splitTraces(inputs.steps, {
        seed: flags.splitSeed,
        fractions,
        groupBy: flags.groupBy,
      });
      if (split.steps.build.length === 0)
        throw new UserError(
          "worldbook.empty_build_split",
          `worldbook build: the build split is empty (${inputs.steps.length} transitions in ${split.manifest.groups.validation.length + split.manifest.groups.test.length} groups went to validation and test). Fix: give more traces or a larger build fraction (--split)`,
          { details: { transitions: inputs.steps.length } },
        );
      // The families' own build hints (e.g. FrozenLake's tile lookup and derived status), then the flags.
      const families = [...new Set(inputs.steps.map((s) => s.family))];
      const options = {
        ...wm.worldbookDefaultsFor(families),
        ...(flags.minSupport === undefined ? {} : { minSupport: flags.minSupport }),
      };
      let wb = wm.buildWorldbook(split.steps.build, options, { tasks: inputs.tasks, split: split.manifest });
      if (flags.llm) {
        const { createChatClient, llmConfigFromEnv } = await import("../../llm/index.ts");
        const { createCliRuntime } = await import("../context.ts");
        const { reviewWorldbook } = await import("../../worldmodel/worldbook/llm-review.ts");
        const client = createChatClient(
          llmConfigFromEnv(process.env),
          await createCliRuntime(flags.splitSeed),
        );
        wb = await reviewWorldbook(wb, split.steps.build, { client, maxRules: flags.llmMaxRules });
      }
      printBuild(o, await writeBuild(flags.out, wb, split));
    });
}
