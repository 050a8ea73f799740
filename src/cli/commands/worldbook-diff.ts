import type { Command } from "commander";
import type { CliContext } from "../context.ts";

/** `rehearsal worldbook diff A B`: what changed from build A to build B (exit 0 either way). */
export function registerWorldbookDiff(worldbook: Command, ctx: CliContext): void {
  worldbook
    .command("diff <a> <b>")
    .description(
      "what changed between two worldbook builds: rules added, removed or changed (support, probabilities, status, conditions), invariants, schemas, sources",
    )
    .action(async (a: string, b: string) => {
      const o = ctx.out();
      const { readWorldbook } = await import("../../worldmodel/worldbook/read.ts");
      const { describeDiff, diffWorldbooks } = await import("../../worldmodel/worldbook/diff.ts");
      const diff = diffWorldbooks(readWorldbook(a), readWorldbook(b));
      o.result({ a, b, ...diff });
      o.line(`worldbook diff ${a} → ${b}`);
      for (const line of describeDiff(diff)) o.line(line);
    });
}
