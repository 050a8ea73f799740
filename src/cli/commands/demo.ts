import type { Command } from "commander";
import { UserError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";
import { TERMINAL_DEMO } from "../demo-profiles.ts";

/** `rehearsal demo [envs|terminal|frozenlake]`: the main job on the embedded defaults (no model, no network). */
export function registerDemo(program: Command, ctx: CliContext): void {
  program
    .command("demo [which]")
    .description(
      "the main job on embedded defaults: envs (web search → SFT → eval, default), terminal (the same on the terminal suite) or frozenlake",
    )
    .option("--store <dir>", "run store directory", ".rehearsal")
    .option("--episodes <n>", "frozenlake: episodes per task and policy", "50")
    .option("--rollouts <n>", "envs: base-policy rollouts per task", "8")
    .option("--tasks <ids>", "envs, terminal: comma-separated task ids")
    .option("--max-nodes <n>", "envs: node cap per search tree", "48")
    .option("--out <file>", "envs: SFT file", "rehearsal-sft.jsonl")
    .option("--seed <seed>", "root seed", "0")
    .action(
      async (
        which: string | undefined,
        flags: {
          store: string;
          episodes: string;
          rollouts: string;
          tasks?: string;
          maxNodes: string;
          out: string;
          seed: string;
        },
      ) => {
        const name = which ?? "envs";
        // Each demo loads its layers when it runs (start-up stays light).
        if (name === "frozenlake")
          return (await import("./demo-frozenlake.ts")).runFrozenLakeDemo(ctx, flags);
        if (name === "envs") return (await import("./demo-envs.ts")).runEnvsDemo(ctx, flags);
        if (name === "terminal")
          return (await import("./demo-envs.ts")).runEnvsDemo(ctx, flags, TERMINAL_DEMO);
        throw new UserError("demo.unknown", `unknown demo ${name}; choose envs, terminal or frozenlake`);
      },
    );
}
