import { z } from "zod";
import { MAX_SHELL_COMMAND_CHARS } from "../../core/action.ts";
import { UserError } from "../../core/errors.ts";

/** What one command may spend before it is stopped and returned as an error observation. */
export const TerminalLimitsSchema = z
  .object({
    /** Commands run by one command line (loops count every iteration's commands). */
    maxCommandCount: z.number().int().positive().max(1_000_000).default(5_000),
    /** Iterations of one shell/awk/sed/jq loop. */
    maxLoopIterations: z.number().int().positive().max(1_000_000).default(5_000),
    /** Wall time of one command line, in milliseconds. */
    maxExecutionMs: z.number().int().positive().max(600_000).default(3_000),
    /** Extra time before the watchdog abandons a command that missed its own deadline. */
    watchdogGraceMs: z.number().int().nonnegative().max(60_000).default(2_000),
    /** Bytes of stdout + stderr one command may produce (and the longest string it may build). */
    maxOutputBytes: z
      .number()
      .int()
      .positive()
      .max(256 * 1024 * 1024)
      .default(1024 * 1024),
    /** Bytes the whole virtual file system may hold. */
    maxFileSystemBytes: z
      .number()
      .int()
      .positive()
      .max(1024 * 1024 * 1024)
      .default(16 * 1024 * 1024),
    /**
     * just-bash's secondary guard that patches JavaScript globals (eval, Function, timers, process)
     * while each command runs. Off by default: it costs about a millisecond per command, and the
     * sandbox does not rest on it (the file system is in memory, no network is configured, and no
     * command evaluates JavaScript or Python: those interpreters are not enabled).
     */
    defenseInDepth: z.boolean().default(false),
  })
  .strict();
export type TerminalLimits = z.infer<typeof TerminalLimitsSchema>;

export const TerminalConfigSchema = z
  .object({
    /** Steps per episode when the task sets no `maxSteps`. */
    horizon: z.number().int().positive().max(10_000).default(30),
    /** Characters of stdout (and of stderr) shown; the rest is cut with an explicit marker. */
    maxOutputChars: z.number().int().positive().max(1_000_000).default(4_000),
    /** Longest command line accepted (at most the action schema's cap). */
    maxCommandChars: z.number().int().positive().max(MAX_SHELL_COMMAND_CHARS).default(2_000),
    /** Recent commands kept in the transcript shown with every observation. */
    transcriptLength: z.number().int().nonnegative().max(100).default(8),
    /** Characters of each command's output kept in the transcript. */
    transcriptOutputChars: z.number().int().nonnegative().max(10_000).default(200),
    /** Adds the structured state view (file tree with hashes and sizes) to `observation.data.state`. */
    includeStateView: z.boolean().default(true),
    limits: TerminalLimitsSchema.default(TerminalLimitsSchema.parse({})),
  })
  .strict();
export type TerminalConfigInput = z.input<typeof TerminalConfigSchema>;
export type TerminalConfig = z.output<typeof TerminalConfigSchema>;

/** Parses a terminal config; throws a UserError naming each bad field. */
export function parseTerminalConfig(input: TerminalConfigInput = {}): TerminalConfig {
  const parsed = TerminalConfigSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
  throw new UserError(
    "terminal.bad_config",
    `Terminal config is invalid: ${issues.join("; ")}. Fix these fields (see docs/terminal.md).`,
    { cause: parsed.error },
  );
}
