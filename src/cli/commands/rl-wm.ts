import { UserError } from "../../core/errors.ts";
import type { WmSpec } from "../../runner/execute-rl-rollouts.ts";

/**
 * `--wm perfect | worldbook:DIR` with `--wm-candidates` / `--wm-cap`, validated (a bad value is a user
 * error). The llm policy gets the world model for its own `<call_wm>` calls (at most the cap per step;
 * `--wm-candidates` is for wm-lookahead only); any other policy is wrapped in wm-lookahead.
 */
export async function wmSpec(flags: {
  wm?: string;
  wmCandidates?: number;
  wmCap?: number;
}): Promise<WmSpec | undefined> {
  if (flags.wm === undefined) return undefined;
  const book = flags.wm.startsWith("worldbook:") ? flags.wm.slice("worldbook:".length) : undefined;
  if (flags.wm !== "perfect" && !book)
    throw new UserError(
      "rl.wm_model",
      `--wm ${flags.wm} is not a world model this command has; use --wm perfect (the environment's own snapshots) or --wm worldbook:DIR (a worldbook built with 'rehearsal worldbook build')`,
    );
  const { parseWmLookaheadOptions } = await import("../../rl/index.ts");
  const o = parseWmLookaheadOptions({
    ...(flags.wmCandidates === undefined ? {} : { candidates: flags.wmCandidates }),
    ...(flags.wmCap === undefined ? {} : { cap: flags.wmCap }),
  });
  if (!book) return { model: "perfect", ...o };
  // A missing or damaged book is refused before the run starts (worldbook.invalid, exit 2).
  const { readWorldbook } = await import("../../worldmodel/index.ts");
  readWorldbook(book);
  return { model: "worldbook", dir: book, ...o };
}
