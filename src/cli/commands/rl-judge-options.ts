import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { JudgeSpec, JudgeSummary } from "../../rl/index.ts";
import { floatOption, intOption, positiveIntOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";

/** The judge's flags, shared by `rl rollouts --success judge` and `rl calibrate-judge`. */
export interface JudgeFlags {
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeTemperature?: number;
  judgeSeed?: number;
  judgeMaxTokens?: number;
}

/** Adds the judge's flags (the endpoint otherwise comes from REHEARSAL_LLM_* like the llm policy's). */
export function addJudgeOptions(command: Command, with_: { success?: boolean } = {}): Command {
  if (with_.success)
    command.option("--success <s>", "R_success from: verifier (default) | judge (the LLM judge)");
  return command
    .option("--judge-model <name>", "judge model (default: REHEARSAL_LLM_MODEL)")
    .option(
      "--judge-base-url <url>",
      "judge endpoint, OpenAI-compatible /v1 (default: REHEARSAL_LLM_BASE_URL)",
    )
    .option("--judge-temperature <t>", "judge sampling temperature (default 0.7)", floatOption)
    .option(
      "--judge-seed <n>",
      "judge base seed: evaluation k, attempt a uses seed + 2k + a (default 0)",
      intOption,
    )
    .option("--judge-max-tokens <n>", "judge completion budget per call (default 512)", positiveIntOption);
}

/** True when any judge flag was given. */
export function hasJudgeFlags(flags: JudgeFlags): boolean {
  return [
    flags.judgeModel,
    flags.judgeBaseUrl,
    flags.judgeTemperature,
    flags.judgeSeed,
    flags.judgeMaxTokens,
  ].some((v) => v !== undefined);
}

/** The judge's endpoint (REHEARSAL_LLM_* overridden by the flags) and options, validated (user errors). */
export async function judgeSpecOf(flags: JudgeFlags): Promise<JudgeSpec> {
  const { llmConfigFromEnv } = await import("../../llm/config.ts");
  const { JudgeOptionsSchema } = await import("../../rl/judge/judgment-schema.ts");
  const llm = (() => {
    try {
      return llmConfigFromEnv(process.env, {
        ...(flags.judgeModel === undefined ? {} : { model: flags.judgeModel }),
        ...(flags.judgeBaseUrl === undefined ? {} : { baseUrl: flags.judgeBaseUrl }),
      });
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      throw new UserError(
        e.code,
        `LLM judge endpoint: ${e.message} (or pass --judge-model / --judge-base-url)`,
        { cause: e },
      );
    }
  })();
  const r = JudgeOptionsSchema.safeParse({
    ...(flags.judgeSeed === undefined ? {} : { seed: flags.judgeSeed }),
    ...(flags.judgeTemperature === undefined ? {} : { temperature: flags.judgeTemperature }),
    ...(flags.judgeMaxTokens === undefined ? {} : { maxTokens: flags.judgeMaxTokens }),
  });
  if (!r.success)
    throw new UserError(
      "judge.options",
      `invalid judge options: ${r.error.issues.map((i) => `--judge-${String(i.path.at(-1)).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`).join("; ")}`,
    );
  return { llm, options: r.data };
}

/** `rl rollouts --success verifier|judge`: the judge spec when judged (judge flags need `--success judge`). */
export async function successJudge(flags: JudgeFlags & { success?: string }): Promise<{ judge?: JudgeSpec }> {
  const success = flags.success ?? "verifier";
  if (success !== "verifier" && success !== "judge")
    throw new UserError(
      "rl.success",
      `--success ${success} is not known; use --success verifier or --success judge`,
    );
  if (success === "verifier") {
    if (hasJudgeFlags(flags))
      throw new UserError(
        "rl.success",
        "the --judge-* flags set the LLM judge; add --success judge to use it",
      );
    return {};
  }
  return { judge: await judgeSpecOf(flags) };
}

/** One line of a judge summary: judged, failures, tiebreaks and agreement with the verifier. */
export function printJudgeLine(o: Output, summary: JudgeSummary | undefined): void {
  if (!summary) return;
  const a = summary.agreement;
  o.line(
    `judge ${summary.model}: ${summary.judged} judged, ${summary.failed} failed (excluded), ${summary.tiebreaks} decided by a third call; agreement with the verifier ${a.accuracy === null ? "n/a" : formatPercent(a.accuracy)}, κ ${a.kappa === null ? `undefined (${a.kappaUndefined})` : a.kappa.toFixed(3)}`,
  );
}
