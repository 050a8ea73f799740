import { Command, CommanderError } from "commander";
import { toRehearsalError, UserError } from "../core/errors.ts";
// Only light modules load at start-up: each command imports what it runs inside its action, so
// `rehearsal --help` and `rehearsal noise list` never load Playwright, SQLite, OpenAI or chess; and
// only the named command's module is loaded at all (see `registrarsFor`).
import { packageVersion } from "../runner/code-version.ts";
import { createSignalController, type SignalController } from "../runner/signals.ts";
import type { CliContext } from "./context.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { createOutput, type Output } from "./output.ts";

export interface CliIo {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** `--json` anywhere before `--`: known even when commander rejects the arguments. */
function wantsJson(argv: ReadonlyArray<string>): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

/** Adds one top-level command (and its subcommands) to the program. */
export type Registrar = (program: Command, context: CliContext) => void;

/** Every top-level command in help order, with the module that registers it (imported on demand). */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Registrar>]> = [
  ["run", async () => (await import("./commands/run.ts")).registerRun],
  ["runs", async () => (await import("./commands/runs.ts")).registerRuns],
  ["rl", async () => (await import("./commands/rl.ts")).registerRl],
  [
    "export",
    async () => {
      const { registerExport } = await import("./commands/export.ts");
      return (program, context) => registerExport(program, context.out);
    },
  ],
  ["tasks", async () => (await import("./commands/tasks.ts")).registerTasks],
  ["search", async () => (await import("./commands/search.ts")).registerSearch],
  ["eval", async () => (await import("./commands/eval.ts")).registerEval],
  ["skl", async () => (await import("./commands/skl.ts")).registerSkl],
  ["noise", async () => (await import("./commands/noise.ts")).registerNoise],
  ["demo", async () => (await import("./commands/demo.ts")).registerDemo],
  ["worldbook", async () => (await import("./commands/worldbook.ts")).registerWorldbook],
  ["experiment", async () => (await import("./commands/experiment.ts")).registerExperiment],
  ["train", async () => (await import("./commands/train.ts")).registerTrain],
  ["serve", async () => (await import("./commands/serve.ts")).registerServe],
  ["ui", async () => (await import("./commands/ui.ts")).registerUi],
];

/**
 * The registrars `argv` needs: only its command's when the first operand names one (each command
 * registers exactly its own name, with no aliases, so commander parses it as with all of them);
 * every one otherwise (root help, `help`, an unknown or missing command, anything after `--`).
 */
export async function registrarsFor(argv: ReadonlyArray<string>): Promise<Registrar[]> {
  for (const arg of argv.slice(2)) {
    if (arg === "--") break;
    if (arg.startsWith("-")) continue;
    const named = COMMANDS.find(([name]) => name === arg);
    if (named) return [await named[1]()];
    break;
  }
  return Promise.all(COMMANDS.map(([, load]) => load()));
}

/** The names of every top-level command, in help order. */
export const COMMAND_NAMES: ReadonlyArray<string> = COMMANDS.map(([name]) => name);

export function buildProgram(
  io: CliIo = {},
  argv: ReadonlyArray<string> = [],
  registrars: ReadonlyArray<Registrar> = [],
): {
  program: Command;
  output: () => Output;
  context: CliContext;
  signals: () => SignalController | undefined;
} {
  const program = new Command();
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let output: Output | undefined;
  let signals: SignalController | undefined;
  const json = () => wantsJson(argv) || Boolean(program.opts().json);
  const getOutput = () => {
    output ??= createOutput({ json: json(), stdout, stderr });
    return output;
  };
  const context: CliContext = {
    out: getOutput,
    signals() {
      signals ??= createSignalController({
        onFirst: (name) =>
          stderr.write(
            `${name}: finishing the steps in flight and saving the run; ${name} again exits now\n`,
          ),
      });
      return signals;
    },
  };
  program
    .name("rehearsal")
    .description("Learn agents from environment experience: record, search, verify and export.")
    .version(packageVersion())
    .option("--json", "machine-readable JSON output on stdout")
    .configureOutput({
      writeOut: (s) => stdout.write(s),
      writeErr: (s) => stderr.write(s),
      // With --json the error goes to stdout as JSON (see main); the help after it stays on stderr.
      outputError: (s, write) => (json() ? undefined : write(s)),
    })
    .showHelpAfterError()
    .exitOverride();
  for (const register of registrars) register(program, context);
  return { program, output: getOutput, context, signals: () => signals };
}

/**
 * A commander rejection as a typed user error (`cli.unknown_option`, `cli.missing_command`, ...), for
 * `--json`: commander's own text for a missing subcommand is "(outputHelp)", which names nothing.
 */
export function commanderUserError(e: CommanderError): UserError {
  const name = e.code.replace(/^commander\./, "");
  if (name === "help")
    return new UserError(
      "cli.missing_command",
      "no command given; the commands are listed on stderr (or run with --help)",
    );
  const code = `cli.${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
  return new UserError(code, e.message.replace(/^error: /, ""));
}

let pipeGuard = false;

/** Runs the CLI on `argv` (node, script, args...); returns the exit code (see README "Signals and exit codes"). */
export async function main(argv: string[], io: CliIo = {}): Promise<number> {
  if (!pipeGuard && (io.stdout ?? process.stdout) === process.stdout) {
    pipeGuard = true;
    // A closed pipe (`rehearsal export ... | head`) is a normal end, not a crash.
    process.stdout.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(0);
      throw e;
    });
  }
  const { program, output, signals } = buildProgram(io, argv, await registrarsFor(argv));
  try {
    await program.parseAsync(argv);
    return signals()?.exitCode() ?? EXIT_CODES.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0;
      if (output().json) output().error(commanderUserError(e));
      return EXIT_CODES.user;
    }
    const err = output().error(toRehearsalError(e));
    return EXIT_CODES[err.category];
  } finally {
    signals()?.dispose();
  }
}

const invokedDirectly = process.argv[1] !== undefined && /cli[/\\]main\.(ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv).then((code) => {
    process.exitCode = code;
  });
}
