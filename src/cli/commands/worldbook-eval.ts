import { type Command, InvalidArgumentError, Option } from "commander";
import { UserError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";
import { listOption, positiveIntOption } from "../options.ts";
import { addTraceInputOptions } from "./worldbook-inputs.ts";

interface EvalFlags {
  runs?: string[] | "all";
  store: string;
  traces?: string[];
  systems?: string[] | "all";
  multiTurn: boolean;
  ablations: boolean;
  envOptions: Record<string, unknown>;
  w2r?: boolean;
  w2rPolicy: "random" | "heuristic" | "oracle";
  w2rEpisodes: number;
  maxSteps?: number;
}

function jsonObjectOption(value: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {}
  throw new InvalidArgumentError(`expected a JSON object, got '${value}'`);
}

/** `rehearsal worldbook eval DIR`: fidelity of the five systems on held-out traces, multi-turn, ablations, W2R. */
export function registerWorldbookEval(worldbook: Command, ctx: CliContext): void {
  addTraceInputOptions(
    worldbook
      .command("eval <dir>")
      .description(
        "score a worldbook on held-out traces (default DIR/heldout/test.jsonl): systems × metrics with TV, multi-turn, ablations; --w2r replays world-model episodes in the real environment",
      ),
    {
      runs: "held-out run ids of the store instead of DIR/heldout/test.jsonl",
      traces: "held-out JSONL trace files instead of DIR/heldout/test.jsonl",
    },
  )
    .option("--systems <list>", "systems to score: copy,retrieval,rules,gates,full (default all)", listOption)
    .option("--no-multi-turn", "skip the open-loop multi-turn consistency")
    .option("--no-ablations", "skip the evidence/abstractions ablations")
    .option(
      "--env-options <json>",
      "the real environment's options (e.g. FrozenLake's slipRatio)",
      jsonObjectOption,
      {},
    )
    .option(
      "--w2r",
      "world-to-real: a policy plays in the world model, its actions replay in the real environment",
    )
    .addOption(
      new Option("--w2r-policy <name>", "the policy acting in the world model")
        .choices(["random", "heuristic", "oracle"])
        .default("random"),
    )
    .option(
      "--w2r-episodes <n>",
      "W2R episodes per task (seeds of the worldbook's starts)",
      positiveIntOption,
      5,
    )
    .option("--max-steps <n>", "step limit of a W2R episode", positiveIntOption)
    .action(async (dir: string, flags: EvalFlags) => {
      const o = ctx.out();
      if (flags.runs === "all" || flags.systems === "all")
        throw new UserError(
          "worldbook_eval.bad_list",
          "worldbook eval: --runs and --systems take names, not 'all'. Fix: --runs ID,ID or leave --systems out for all five",
        );
      const { loadTraceInputs } = await import("./worldbook-inputs.ts");
      const heldout =
        flags.runs?.length || flags.traces?.length
          ? await loadTraceInputs({
              store: flags.store,
              ...(flags.runs ? { runs: flags.runs } : {}),
              ...(flags.traces ? { traces: flags.traces } : {}),
            })
          : undefined;
      const { runWorldbookEval } = await import("../../experiments/worldmodel/worldbook-eval.ts");
      const { formatW2rResult } = await import("../../experiments/worldmodel/report.ts");
      const f = await import("../../worldmodel/eval/format.ts");
      const result = await runWorldbookEval({
        dir,
        ...(heldout ? { heldout } : {}),
        ...(flags.systems ? { systems: flags.systems } : {}),
        multiTurn: flags.multiTurn,
        ablations: flags.ablations,
        envOptions: flags.envOptions,
        ...(flags.w2r
          ? {
              w2r: {
                policy: flags.w2rPolicy,
                seeds: flags.w2rEpisodes,
                ...(flags.maxSteps ? { maxSteps: flags.maxSteps } : {}),
              },
            }
          : {}),
      });
      o.result(result);
      const { report } = result;
      o.line(
        `worldbook ${dir} (${report.family}) on ${report.fidelity.transitions} held-out transitions of ${report.fidelity.episodes} episodes (${result.heldout}):`,
      );
      o.line(f.formatFidelityTable(report.fidelity, { format: "plain" }));
      o.line(f.formatTvNote(report.fidelity));
      if (report.multiTurn)
        o.line(`\nmulti-turn consistency:\n${f.formatMultiTurnTable(report.multiTurn, "plain")}`);
      if (report.ablations)
        o.line(`\nablations:\n${f.formatAblationTable(report.ablations, { format: "plain" })}`);
      if (result.w2r) o.line(`\nworld-to-real:\n${formatW2rResult(result.w2r, "plain")}`);
    });
}
