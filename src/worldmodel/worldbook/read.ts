import { join } from "node:path";
import type { z } from "zod";
import { formatIssues, parseJsonText, readTextFile, UserError } from "../../core/index.ts";
import { fileHash, MANIFEST_FILE } from "./files.ts";
import {
  ContractsFileSchema,
  EvidenceSchema,
  InvariantsSchema,
  ManifestSchema,
  NotesFileSchema,
  OPTIONAL_WORLDBOOK_FILES,
  ReviewsFileSchema,
  RulesFileSchema,
  SchemasSchema,
  StartsFileSchema,
  TasksFileSchema,
  WORLDBOOK_FILES,
  type Worldbook,
} from "./schema.ts";

/** The code of every refused worldbook directory: a missing, edited or malformed file. */
export const WORLDBOOK_INVALID = "worldbook.invalid";

const FIX = "rebuild it with buildWorldbook/writeWorldbook from its traces; do not edit the files by hand";

function invalid(dir: string, file: string, problem: string, cause?: unknown): UserError {
  return new UserError(
    WORLDBOOK_INVALID,
    `readWorldbook(): ${join(dir, file)}: ${problem}. Fix: ${FIX}.`,
    cause === undefined ? {} : { cause },
  );
}

function readText(dir: string, file: string): string {
  return readTextFile(join(dir, file), (cause) =>
    invalid(dir, file, `cannot be read (${cause.message})`, cause),
  );
}

function parse<T extends z.ZodTypeAny>(dir: string, file: string, text: string, schema: T): z.output<T> {
  return parseJsonText(text, schema, {
    syntax: (cause) => invalid(dir, file, "is not JSON", cause),
    invalid: (error) =>
      invalid(
        dir,
        file,
        `does not match the worldbook format (${formatIssues(error.issues.slice(0, 5))})`,
        error,
      ),
  });
}

/** Reads a worldbook directory: validates every file with its schema and checks the manifest's hashes. */
export function readWorldbook(dir: string): Worldbook {
  const manifest = parse(dir, MANIFEST_FILE, readText(dir, MANIFEST_FILE), ManifestSchema);
  const texts: Record<string, string> = {};
  const optional = OPTIONAL_WORLDBOOK_FILES.filter((f) => manifest.files[f] !== undefined);
  for (const file of [...WORLDBOOK_FILES, ...optional]) {
    const expected = manifest.files[file];
    if (expected === undefined) throw invalid(dir, MANIFEST_FILE, `lists no hash for ${file}`);
    const text = readText(dir, file);
    const got = fileHash(text);
    if (got !== expected) {
      throw invalid(
        dir,
        file,
        `its sha256 ${got} differs from the manifest's ${expected} (the file was changed)`,
      );
    }
    texts[file] = text;
  }
  const rulesFile = parse(dir, "rules.json", texts["rules.json"] as string, RulesFileSchema);
  const { files: _files, ...rest } = manifest;
  return {
    manifest: rest,
    schemas: parse(dir, "schemas.json", texts["schemas.json"] as string, SchemasSchema),
    evidence: parse(dir, "evidence.json", texts["evidence.json"] as string, EvidenceSchema.array()),
    rules: rulesFile.rules,
    outcomeRules: rulesFile.outcomeRules,
    invariants: parse(dir, "invariants.json", texts["invariants.json"] as string, InvariantsSchema),
    starts: parse(dir, "starts.json", texts["starts.json"] as string, StartsFileSchema),
    tasks: parse(dir, "tasks.json", texts["tasks.json"] as string, TasksFileSchema),
    ...(texts["reviews.json"] === undefined
      ? {}
      : { reviews: parse(dir, "reviews.json", texts["reviews.json"], ReviewsFileSchema) }),
    ...(texts["contracts.json"] === undefined
      ? {}
      : { contracts: parse(dir, "contracts.json", texts["contracts.json"], ContractsFileSchema) }),
    ...(texts["notes.json"] === undefined
      ? {}
      : { notes: parse(dir, "notes.json", texts["notes.json"], NotesFileSchema) }),
  };
}
