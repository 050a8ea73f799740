import { z } from "zod";
import { UserError } from "../../core/index.ts";
import type { FamilyRecordingInput } from "./record.ts";
import type { W2rRunOptions } from "./w2r-run.ts";

/** The families the experiment covers; FrozenLake is played in both slip settings. */
export const ExperimentFamilySchema = z.enum(["frozenlake", "chess", "web"]);
export type ExperimentFamily = z.infer<typeof ExperimentFamilySchema>;

/** `full`: the closing-note run; `small`: a quick configuration (tests, a smoke run). */
export const ExperimentScaleSchema = z.enum(["full", "small"]);
export type ExperimentScale = z.infer<typeof ExperimentScaleSchema>;

/** One family setting of the experiment: what to record, and how W2R plays in its world model. */
export interface FamilySetting {
  /** Short label for tables, e.g. `frozenlake (0, 2/3)`. */
  label: string;
  recording: FamilyRecordingInput;
  /** The policy acting in the world model for W2R, the seeds per task and the step limit. */
  w2r: W2rRunOptions;
  /** FrozenLake: compare the recovered slip probabilities with the environment's. */
  slip: boolean;
}

/** The short web tasks of the built-in suite a small run plays. */
export const SMALL_WEB_TASKS = ["click-button", "toggle-switch"];

/** The settings of `families` at `scale`, recording seeds derived from `seed`. */
export function familySettings(
  families: ReadonlyArray<ExperimentFamily>,
  scale: ExperimentScale,
  seed: string,
): FamilySetting[] {
  if (families.length === 0)
    throw new UserError(
      "experiment.no_families",
      "world-model experiment: no families given. Fix: --families frozenlake,chess,web",
    );
  const full = scale === "full";
  const lakeEpisodes = full ? 600 : 40;
  const lake = (name: string, label: string, envOptions: Record<string, unknown>): FamilySetting => ({
    label,
    recording: {
      name,
      family: "frozenlake",
      envOptions,
      tasks: ["4x4"],
      batches: [{ policy: "random", episodes: lakeEpisodes }],
      seed: `${seed}|${name}`,
    },
    w2r: { policy: "random", seeds: full ? 100 : 5, maxSteps: 100 },
    slip: true,
  });
  const settings: FamilySetting[] = [];
  for (const family of [...new Set(families)]) {
    if (family === "frozenlake") {
      settings.push(lake("frozenlake-symmetric", "frozenlake (1/3, 1/3)", { slippery: true }));
      settings.push(lake("frozenlake-skewed", "frozenlake (0, 2/3)", { slippery: true, slipRatio: [0, 1] }));
    }
    if (family === "chess")
      settings.push({
        label: "chess puzzles",
        recording: {
          name: "chess",
          family: "chess",
          // The puzzle's own replies on the line, random ones off it: no engine is needed.
          envOptions: { opponent: "solution", offLineOpponent: "random" },
          ...(full ? {} : { tasks: ["LQZKc"] }),
          batches: [
            { policy: "oracle", episodes: full ? 2 : 1 },
            { policy: "random", episodes: full ? 2 : 1 },
          ],
          seed: `${seed}|chess`,
        },
        w2r: { policy: "random", seeds: full ? 2 : 1 },
        slip: false,
      });
    if (family === "web")
      settings.push({
        label: "web (short)",
        recording: {
          name: "web",
          family: "web",
          tasks: full ? "all" : SMALL_WEB_TASKS,
          tier: "short",
          batches: [
            { policy: "oracle", randomRate: 0.35, episodes: full ? 6 : 2 },
            { policy: "heuristic", randomRate: 0.35, episodes: full ? 3 : 1 },
          ],
          seed: `${seed}|web`,
        },
        w2r: { policy: "heuristic", seeds: full ? 2 : 1 },
        slip: false,
      });
  }
  return settings;
}
