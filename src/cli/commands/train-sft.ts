import type { Command } from "commander";
import type { CliContext } from "../context.ts";
import { floatOption, positiveIntOption } from "../options.ts";
import { createProgress } from "../progress.ts";
import { trainKind, trainOptionsError } from "./train-options.ts";

interface SftFlags {
  data: string;
  out: string;
  policy?: string;
  env?: string;
  epochs?: number;
  lr?: number;
  l2?: number;
  init?: string;
  seed?: string;
}

export function registerTrainSft(train: Command, ctx: CliContext): void {
  train
    .command("sft")
    .description("weighted SFT: cross-entropy of every exported record's target action, by its weight")
    .requiredOption(
      "--data <file>",
      "a TRL or ShareGPT file of 'rehearsal export sft' (weights or materialised)",
    )
    .requiredOption("--out <ckpt>", "the checkpoint to write (JSON; learning curve beside it)")
    .option("--policy <kind>", "tabular | linear (default tabular)")
    .option("--env <family>", "the family the records are of (default: read from the system prompt)")
    .option("--epochs <n>", "full-batch gradient steps (default 200)", positiveIntOption)
    .option("--lr <rate>", "learning rate (default 1)", floatOption)
    .option("--l2 <c>", "L2 penalty on the weights (default 0)", floatOption)
    .option("--init <ckpt>", "start from this checkpoint's weights")
    .option("--seed <seed>", "recorded in the checkpoint (SFT itself draws nothing)", "0")
    .action(async (flags: SftFlags) => {
      const o = ctx.out();
      const kind = trainKind(flags.policy);
      const { readSftData, SftOptionsSchema, trainSft, writeLearningCurve } = await import(
        "../../train/index.ts"
      );
      const { readCheckpoint, writeCheckpoint } = await import("../../policies/trainable/index.ts");
      const r = SftOptionsSchema.safeParse({
        kind,
        epochs: flags.epochs,
        learningRate: flags.lr,
        l2: flags.l2,
      });
      if (!r.success) throw trainOptionsError("sft", r.error.issues);
      const data = readSftData(flags.data, flags.env);
      const init = flags.init ? readCheckpoint(flags.init).weights : undefined;
      const progress = createProgress(r.data.epochs, {
        json: o.json,
        label: "epochs",
        format: "sft [{bar}] {value}/{total} | loss {loss}",
      });
      const result = (() => {
        try {
          return trainSft(
            data.examples,
            r.data,
            { family: data.family, seed: String(flags.seed ?? "0"), ...(init ? { init } : {}) },
            (epoch, loss) => progress.update(epoch, { loss: loss.toFixed(4) }),
          );
        } finally {
          progress.stop();
        }
      })();
      writeCheckpoint(flags.out, result.checkpoint);
      const curve = writeLearningCurve(flags.out, `train sft (${kind})`, result.curve);
      const first = result.curve[0]?.loss ?? 0;
      const last = result.curve.at(-1)?.loss ?? 0;
      o.result({
        out: flags.out,
        kind,
        family: data.family,
        format: data.format,
        examples: result.examples,
        targetsOutsideCandidates: result.targetsOutsideCandidates,
        contexts: data.contexts,
        lossFirst: first,
        lossLast: last,
        curve,
      });
      o.line(
        `train sft: ${result.examples} ${data.format} records (${data.family}) → ${kind} policy ${flags.out}`,
      );
      o.line(
        `loss ${first.toFixed(4)} → ${last.toFixed(4)} over ${r.data.epochs} epochs; curve ${curve.svg}`,
      );
      o.line(
        `contexts: ${data.contexts.exported} exported, ${data.contexts.prompt} rebuilt from the prompt; targets outside the candidates: ${result.targetsOutsideCandidates} of ${result.examples}`,
      );
      if (data.contexts.prompt > 0)
        o.warn(
          `${data.contexts.prompt} record(s) have no exported context; their contexts were rebuilt from the prompt text, which shows no earlier observations (re-export with 'rehearsal export sft' for exact contexts)`,
        );
      if (result.targetsOutsideCandidates > 0)
        o.warn(
          `${result.targetsOutsideCandidates} target(s) were not among the policy's candidates; they were added for the loss, but the policy cannot propose them when it plays`,
        );
      o.line(`use it with --policy ${kind}:${flags.out}`);
    });
}
