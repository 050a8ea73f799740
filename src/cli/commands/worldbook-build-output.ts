import type { TraceSplits } from "../../worldmodel/splits.ts";
import type { Worldbook } from "../../worldmodel/worldbook/schema.ts";
import type { Output } from "../output.ts";

const SPLITS = ["build", "validation", "test"] as const;

/**
 * Writes the worldbook to `out` (removing an optional file a previous build left and this one has not)
 * and the held-out splits' traces to `out/heldout/<split>.jsonl`; returns the build's counts and hashes.
 */
export async function writeBuild(out: string, wb: Worldbook, split: TraceSplits) {
  const { rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { sha256Hex } = await import("../../core/index.ts");
  const wm = await import("../../worldmodel/index.ts");
  const { ruleCounts } = await import("../../worldmodel/worldbook/describe.ts");
  const manifest = wm.writeWorldbook(out, wb);
  for (const f of wm.OPTIONAL_WORLDBOOK_FILES)
    if (manifest.files[f] === undefined) rmSync(join(out, f), { force: true });
  const heldout: Record<string, { path: string; sha256: string; transitions: number }> = {};
  for (const s of wm.HELDOUT_SPLITS) {
    const path = wm.heldoutTracePath(out, s);
    wm.writeTraceFile(path, split.steps[s]);
    const sha256 = sha256Hex(wm.formatTraceLines(split.steps[s]));
    heldout[s] = { path, sha256, transitions: split.steps[s].length };
  }
  const splits = Object.fromEntries(
    SPLITS.map((s) => [
      s,
      { episodes: split.manifest.episodes[s].length, transitions: split.steps[s].length },
    ]),
  ) as Record<(typeof SPLITS)[number], { episodes: number; transitions: number }>;
  const reviews = wb.reviews && {
    model: wb.reviews.model,
    accepted: wb.reviews.reviews.filter((r) => r.status === "accepted").length,
    rejected: wb.reviews.reviews.filter((r) => r.status === "rejected").length,
    unreviewed: wb.reviews.unreviewed.length,
  };
  const { seed, fractions, groupBy } = split.manifest;
  return {
    out,
    families: manifest.families,
    sources: manifest.sources,
    split: { seed, fractions, groupBy },
    splits,
    rules: ruleCounts(wb.rules),
    outcomeRules: wb.outcomeRules.length,
    ...(reviews ? { reviews } : {}),
    files: manifest.files,
    heldout,
  };
}

export type BuildResult = Awaited<ReturnType<typeof writeBuild>>;

/** The build's result: JSON with `--json`, else lines and tables. */
export function printBuild(o: Output, result: BuildResult): void {
  o.result(result);
  o.line(`worldbook written to ${result.out} (${result.families.join(", ")}; ${result.sources.join(", ")})`);
  o.line(`split seed ${result.split.seed} by ${result.split.groupBy}:`);
  o.table(
    ["split", "episodes", "transitions"],
    SPLITS.map((s) => [s, result.splits[s].episodes, result.splits[s].transitions]),
  );
  const r = result.rules;
  o.line(
    `rules ${r.total}: supported ${r.supported}, tentative ${r.tentative}, conflicted ${r.conflicted}; stochastic ${r.stochastic}; outcome rules ${result.outcomeRules}`,
  );
  const v = result.reviews;
  if (v)
    o.line(
      `LLM reviews (${v.model}): accepted ${v.accepted}, rejected ${v.rejected}, unreviewed ${v.unreviewed}`,
    );
  o.table(
    ["file", "sha256"],
    [
      ...Object.entries(result.files).map(([f, h]) => [f, h]),
      ...Object.values(result.heldout).map((h) => [h.path, h.sha256]),
    ],
  );
}
