import { type Command, Option } from "commander";
import type { CliContext } from "../context.ts";

/** `rehearsal worldbook show DIR [--rule ID] [--status S]`: the rules as a table, or one rule in full. */
export function registerWorldbookShow(worldbook: Command, ctx: CliContext): void {
  worldbook
    .command("show <dir>")
    .description("print a worldbook's rules with their support; --rule ID prints one rule with its evidence")
    .option("--rule <id>", "one rule in full: every field, its evidence with provenance, its counterexamples")
    .addOption(
      new Option("--status <status>", "only rules of this status").choices([
        "supported",
        "tentative",
        "conflicted",
      ]),
    )
    .action(
      async (dir: string, flags: { rule?: string; status?: "supported" | "tentative" | "conflicted" }) => {
        const o = ctx.out();
        const { readWorldbook } = await import("../../worldmodel/worldbook/read.ts");
        const d = await import("../../worldmodel/worldbook/describe.ts");
        const wb = readWorldbook(dir);
        if (flags.rule !== undefined) {
          const detail = d.ruleDetail(wb, flags.rule);
          o.result(detail);
          for (const line of d.describeRule(detail)) o.line(line);
          return;
        }
        const rules = d.selectRules(wb, flags.status);
        o.result({
          manifest: wb.manifest,
          counts: d.ruleCounts(wb.rules),
          rules,
          outcomeRules: wb.outcomeRules,
        });
        const m = wb.manifest;
        o.line(
          `worldbook ${dir}: ${m.families.join(", ")}, ${m.episodes} episodes, ${m.transitions} transitions, ${wb.rules.length} rules`,
        );
        if (rules.length === 0) o.line(flags.status ? `no ${flags.status} rules` : "no rules");
        else o.table([...d.RULE_COLUMNS], rules.map(d.ruleRow));
      },
    );
}
