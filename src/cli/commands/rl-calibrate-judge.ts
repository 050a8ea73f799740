import type { Command } from "commander";
import type { CalibrationReport } from "../../rl/index.ts";
import { type CliContext, withRunner } from "../context.ts";
import { positiveIntOption } from "../options.ts";
import { formatPercent, type Output } from "../output.ts";
import { addJudgeOptions, type JudgeFlags, judgeSpecOf } from "./rl-judge-options.ts";

interface CalibrateFlags extends JudgeFlags {
  run: string;
  store: string;
  limit?: number;
}

/** The agreement as a table (confusion matrix, verifier rows × judge columns), then the counts. */
function printCalibration(o: Output, r: CalibrationReport): void {
  const { tp, fn, fp, tn } = r.agreement.confusion;
  o.table(
    ["verifier \\ judge", "success", "failure"],
    [
      ["success", tp, fn],
      ["failure", fp, tn],
    ],
  );
  const a = r.agreement;
  o.line(
    `judge ${r.model} on run ${r.runId}: ${r.judged} judged of ${r.considered} (${r.skipped} skipped: not complete or no verifier outcome), ${r.failed} judge failure${r.failed === 1 ? "" : "s"}`,
  );
  o.line(
    `accuracy ${a.accuracy === null ? "n/a" : formatPercent(a.accuracy)}, Cohen's κ ${a.kappa === null ? `undefined (${a.kappaUndefined})` : a.kappa.toFixed(3)}; ${r.tiebreaks} disagreement${r.tiebreaks === 1 ? "" : "s"} between the two calls resolved by a third (${r.tiebreaksAgreeing} then agreeing with the verifier)`,
  );
  for (const d of r.disagreements)
    o.line(`  ${d.trajectoryId} (${d.taskId}): verifier ${d.verifier}, judge ${d.judge} — ${d.reason}`);
  for (const f of r.failures) o.line(`  ${f.trajectoryId}: judge failed (${f.code})`);
  o.line(`the report and every judgment: 'rehearsal runs show ${r.runId} --json' (summary.judgeCalibration)`);
}

export function registerRlCalibrateJudge(rl: Command, ctx: CliContext): void {
  addJudgeOptions(
    rl
      .command("calibrate-judge")
      .description(
        "judge a stored run's trajectories with the LLM judge and report agreement with the verifier (accuracy, Cohen's κ, confusion matrix)",
      )
      .requiredOption("--run <id>", "the run whose trajectories to judge (any kind: run, eval, rl)")
      .option("--store <dir>", "run store directory", ".rehearsal")
      .option("--limit <n>", "judge at most n trajectories (episode order)", positiveIntOption),
  ).action(async (flags: CalibrateFlags) => {
    const o = ctx.out();
    const spec = await judgeSpecOf(flags);
    const { calibrateJudge } = await import("../../rl/judge/calibrate.ts");
    const { createChatClient } = await import("../../llm/client.ts");
    const report = await withRunner(ctx, flags.store, "judge", ({ runtime, store, signals }) =>
      calibrateJudge(
        store,
        flags.run,
        {
          client: createChatClient(spec.llm, runtime),
          nowMs: () => runtime.clock.nowMs(),
          ...(signals ? { signal: signals.signal } : {}),
        },
        spec.options,
        { ...(flags.limit === undefined ? {} : { limit: flags.limit }), concurrency: spec.llm.concurrency },
      ),
    );
    o.result(report);
    printCalibration(o, report);
  });
}
