import type { discoveryAtMatchedSteps } from "../../eval/index.ts";
import { formatPercent, type Output } from "../output.ts";

/** The envs demo's last table: search discovery beside the base policy at matched environment steps. */
export function printDiscovery(o: Output, comparison: ReturnType<typeof discoveryAtMatchedSteps>): void {
  o.line(
    "\nsearch discovery vs the base policy (matched environment steps: m = search steps / mean episode length)",
  );
  o.table(
    [
      "tier",
      "tasks",
      "search: ≥1 verified success",
      "search env steps / task",
      "base at matched steps",
      "base pass@1",
      "base pass@8",
    ],
    comparison.map((r) => [
      r.tier,
      r.tasks,
      formatPercent(r.searchDiscovery),
      r.searchStepsPerTask.toFixed(0),
      `${formatPercent(r.baseAtMatchedSteps)}${r.extrapolated > 0 ? ` (${r.extrapolated} extrap.)` : ""}`,
      formatPercent(r.basePass1),
      formatPercent(r.basePass8),
    ]),
  );
}
