import { z } from "zod";
import { ActionErrorSchema } from "../../core/observation.ts";
import { RandomStateSchema } from "../../core/random.ts";

export const SavedEntrySchema = z.object({
  path: z.string().startsWith("/"),
  kind: z.enum(["file", "dir", "symlink"]),
  mode: z.number().int().nonnegative(),
  text: z.string().optional(),
  base64: z.string().optional(),
  target: z.string().optional(),
});

/** One command of the transcript, with its output cut to the configured size. */
export const TranscriptEntrySchema = z.object({
  command: z.string(),
  exitCode: z.number().int(),
  output: z.string(),
});
export type TranscriptEntry = z.infer<typeof TranscriptEntrySchema>;

/** The last command's full (already truncated) result. */
export const LastResultSchema = z.object({
  command: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int(),
});
export type LastResult = z.infer<typeof LastResultSchema>;

/** Everything a terminal episode is; the snapshot `state` (the file system is saved, not the shell). */
export const TerminalStateSchema = z.object({
  entries: z.array(SavedEntrySchema),
  cwd: z.string(),
  env: z.record(z.string(), z.string()),
  steps: z.number().int().nonnegative(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  outcome: z.enum(["done", "fail"]).optional(),
  answer: z.string().optional(),
  oracleCursor: z.number().int().nonnegative(),
  random: RandomStateSchema,
  last: LastResultSchema.nullable(),
  transcript: z.array(TranscriptEntrySchema),
  lastError: ActionErrorSchema.optional(),
});
export type TerminalState = z.infer<typeof TerminalStateSchema>;

/** Cuts `text` to `max` characters with an explicit marker naming what was dropped. */
export function truncateOutput(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[... output truncated: ${text.length - max} more characters]\n`;
}

/** The text a policy reads: the last command and its output, the cwd, and the recent transcript. */
export function renderTerminalText(input: {
  cwd: string;
  last: LastResult | null;
  transcript: ReadonlyArray<TranscriptEntry>;
  status: string;
}): string {
  const lines: string[] = [];
  if (input.last === null) {
    lines.push("A bash shell is ready (virtual file system; no network).");
  } else {
    lines.push(`$ ${input.last.command}`);
    if (input.last.stdout !== "") lines.push(input.last.stdout.replace(/\n$/, ""));
    if (input.last.stderr !== "") lines.push("[stderr]", input.last.stderr.replace(/\n$/, ""));
    lines.push(`[exit code ${input.last.exitCode}]`);
  }
  lines.push(`cwd: ${input.cwd}`);
  if (input.transcript.length > 0) {
    lines.push("", "Recent commands (oldest first):");
    for (const t of input.transcript) lines.push(`  $ ${t.command}  [exit ${t.exitCode}]`);
  }
  if (input.status !== "running") lines.push("", `Episode ${input.status}.`);
  return lines.join("\n");
}
