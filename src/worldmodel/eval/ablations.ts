import type { TraceStep } from "../trace.ts";
import type { Worldbook } from "../worldbook/schema.ts";
import { evaluateFidelity, type FidelityOptions } from "./fidelity.ts";
import type { AblationReport, AblationVariant } from "./report.ts";

/** The ablation variants of the full system: which parts of the worldbook it may use. */
export const ABLATIONS: ReadonlyArray<{
  variant: AblationVariant;
  useEvidence: boolean;
  useAbstractions: boolean;
}> = [
  { variant: "evidence-only", useEvidence: true, useAbstractions: false },
  { variant: "abstractions-only", useEvidence: false, useAbstractions: true },
  { variant: "both", useEvidence: true, useAbstractions: true },
];

/**
 * The full system's fidelity with the grounded evidence only (`useAbstractions: false`), the induced
 * abstractions only (`useEvidence: false`) and both. Each variant's fidelity is labelled `full/<variant>`.
 */
export async function evaluateAblations(
  book: Worldbook,
  heldout: ReadonlyArray<TraceStep>,
  options: Omit<FidelityOptions, "systems">,
): Promise<AblationReport> {
  const variants: AblationReport["variants"] = [];
  for (const { variant, useEvidence, useAbstractions } of ABLATIONS) {
    const report = await evaluateFidelity(book, heldout, {
      ...options,
      systems: ["full"],
      simulator: { ...options.simulator, useEvidence, useAbstractions },
    });
    const fidelity = report.systems[0];
    if (fidelity)
      variants.push({
        variant,
        useEvidence,
        useAbstractions,
        fidelity: { ...fidelity, system: `full/${variant}` },
      });
  }
  return { variants };
}
