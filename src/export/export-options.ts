import { z } from "zod";
import { TrajectoryStatusSchema, UserError } from "../core/index.ts";
import { SFT_EXPORT_DEFAULTS } from "./sft-export.ts";

/**
 * The options of the export commands, validated at the CLI boundary: a bad value is a UserError that
 * names the flag and what it accepts (e.g. `--status bogus` lists the trajectory statuses).
 */
const storeDir = z.string().min(1);
const runId = z.string().min(1);

export const TrajectoriesExportFlagsSchema = z.object({
  run: runId,
  format: z.enum(["jsonl"]).default("jsonl"),
  out: z.string().min(1).optional(),
  status: TrajectoryStatusSchema.optional(),
  store: storeDir,
});
export type TrajectoriesExportFlags = z.infer<typeof TrajectoriesExportFlagsSchema>;

export const SftExportFlagsSchema = z.object({
  run: runId,
  out: z.string().min(1),
  format: z.enum(["trl", "sharegpt"]).default(SFT_EXPORT_DEFAULTS.format),
  observation: z.enum(["axtree", "screenshot", "both"]).default(SFT_EXPORT_DEFAULTS.observation),
  window: z.number().int().min(1).default(SFT_EXPORT_DEFAULTS.window),
  history: z.number().int().min(0).default(SFT_EXPORT_DEFAULTS.historyLength),
  beta: z.number().finite().default(SFT_EXPORT_DEFAULTS.beta),
  wMax: z.number().finite().default(SFT_EXPORT_DEFAULTS.wMax),
  fraction: z.number().gt(0).max(1).optional(),
  materializeWeights: z.boolean().default(SFT_EXPORT_DEFAULTS.materializeWeights),
  seed: z.string().default(SFT_EXPORT_DEFAULTS.seed),
  context: z.boolean().default(true),
  store: storeDir,
});
export type SftExportFlags = z.infer<typeof SftExportFlagsSchema>;

export const TreeExportFlagsSchema = z.object({
  run: runId,
  tasks: z.union([z.literal("all"), z.array(z.string().min(1)).min(1)]).optional(),
  out: z.string().min(1).optional(),
  store: storeDir,
});
export type TreeExportFlags = z.infer<typeof TreeExportFlagsSchema>;

const flagName = (key: PropertyKey) => `--${String(key).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Parses commander's flags for `export <command>`; the first problem is a UserError naming the flag. */
export function parseExportFlags<S extends z.ZodType>(
  schema: S,
  flags: unknown,
  command: string,
): z.output<S> {
  const parsed = schema.safeParse(flags);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const key = issue.path[0];
    const given = key !== undefined ? (flags as Record<PropertyKey, unknown>)[key as string] : undefined;
    const shown = given === undefined ? "" : `, got '${String(given)}'`;
    return `${key === undefined ? "options" : flagName(key)}: ${issue.message}${shown}`;
  });
  throw new UserError(`export.invalid_option`, `export ${command}: ${issues.join("; ")}`, {
    details: {
      command,
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    },
  });
}
