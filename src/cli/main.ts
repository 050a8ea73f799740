import { Command, CommanderError } from "commander";
import { toRehearsalError } from "../core/index.ts";
import { packageVersion } from "./code-version.ts";
import { registerDemo } from "./commands/demo.ts";
import { registerEval } from "./commands/eval.ts";
import { registerExport } from "./commands/export.ts";
import { registerNoise } from "./commands/noise.ts";
import { registerRun } from "./commands/run.ts";
import { registerRuns } from "./commands/runs.ts";
import { registerSearch } from "./commands/search.ts";
import { registerSkl } from "./commands/skl.ts";
import { registerTasks } from "./commands/tasks.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { createOutput, type Output } from "./output.ts";

export function buildProgram(): { program: Command; output: () => Output } {
  const program = new Command();
  let output: Output | undefined;
  const getOutput = () => {
    output ??= createOutput({ json: Boolean(program.opts().json) });
    return output;
  };
  program
    .name("rehearsal")
    .description("Learn agents from environment experience: record, search, verify and export.")
    .version(packageVersion())
    .option("--json", "machine-readable JSON output on stdout")
    .showHelpAfterError()
    .exitOverride();
  registerRun(program, getOutput);
  registerRuns(program, getOutput);
  registerExport(program, getOutput);
  registerTasks(program, getOutput);
  registerSearch(program, getOutput);
  registerEval(program, getOutput);
  registerSkl(program, getOutput);
  registerNoise(program, getOutput);
  registerDemo(program, getOutput);
  return { program, output: getOutput };
}

export async function main(argv: string[]): Promise<number> {
  // A closed pipe (`rehearsal export ... | head`) is a normal end, not a crash.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
  const { program, output } = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0;
      return EXIT_CODES.user;
    }
    const err = output().error(toRehearsalError(e));
    return EXIT_CODES[err.category];
  }
}

const invokedDirectly = process.argv[1] !== undefined && /cli[/\\]main\.(ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
