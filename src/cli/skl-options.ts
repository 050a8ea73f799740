import { type Command, Option } from "commander";
import { intOption } from "./options.ts";

/** Each SKL subcommand's description and default output directory. */
const SKL_COMMANDS = {
  frozenlake: {
    description:
      "no reflection vs trajectory reflection vs stateful (root-only, bootstrapping) on train and held-out maps",
    outDir: "rehearsal-skl",
  },
  chess: {
    description:
      "SKL-RL on chess puzzles: simulate N branches of H moves from each state, write z_hat, act; per expert rate",
    outDir: "rehearsal-skl-chess",
  },
  sd: {
    description:
      "SKL-SD on FrozenLake: D_base, D_distill and D_reflect as TRL JSONL, with λ1 and λ2 in a manifest",
    outDir: "rehearsal-skl-sd",
  },
} as const;

/** An SKL subcommand with the options every one has: `--seed`, `--out-dir`, `--store`. */
export function sklCommand(skl: Command, name: keyof typeof SKL_COMMANDS): Command {
  const spec = SKL_COMMANDS[name];
  return skl
    .command(name)
    .description(spec.description)
    .option("--seed <seed>", "seed", "0")
    .option("--out-dir <dir>", "where the experiment's files go", spec.outDir)
    .option(
      "--store <dir>",
      "run store: the experiment is recorded there as a run of kind skl",
      ".rehearsal",
    );
}

/** Adds `--writer` (statistical | llm). */
export function writerOption(command: Command): Command {
  return command.option(
    "--writer <name>",
    "knowledge writer: statistical | llm (REHEARSAL_LLM_* variables)",
    "statistical",
  );
}

/** The writer flags every SKL command shares; `llm` reads the REHEARSAL_LLM_* variables. */
export async function writerOptions(writer: string): Promise<{
  writer: "statistical" | "llm";
  llm?: Record<string, unknown>;
}> {
  const name = writer as "statistical";
  if (writer !== "llm") return { writer: name };
  const { llmConfigFromEnv } = await import("../llm/config.ts");
  return { writer: name, llm: llmConfigFromEnv(process.env) };
}

/** Adds `--knowledge` (json | sqlite): where the experiment's knowledge tables are kept. */
export function knowledgeOption(command: Command, json: string): Command {
  return command.addOption(
    new Option(
      "--knowledge <where>",
      `where the knowledge tables are kept: json (${json}) | sqlite (the store's database, table <run id>/<name>)`,
    )
      .choices(["json", "sqlite"])
      .default("json"),
  );
}

/** `--seed` as the integer seed and `--out-dir` of the experiments that take them so (chess, sd). */
export function seedAndOutDir(flags: { seed: string; outDir: string }): { seed: number; outDir: string } {
  return { seed: intOption(flags.seed), outDir: flags.outDir };
}
