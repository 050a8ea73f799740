import type { z } from "zod";
import { sklRlRecordSchemas } from "../../export/skl-rl-datasets.ts";
import { BranchSchema, SimulationKnowledgeFieldsSchema } from "../../knowledge/simulation-knowledge.ts";

/** The SKL-RL chess dataset records over the knowledge layer's branch and z_hat schemas. */
export const { KnowledgeSnapshotSchema, SklStepSchema, SklTrajectoryRecordSchema, SklDistillRecordSchema } =
  sklRlRecordSchemas(BranchSchema, SimulationKnowledgeFieldsSchema);
export type KnowledgeSnapshot = z.infer<typeof KnowledgeSnapshotSchema>;
export type SklStep = z.infer<typeof SklStepSchema>;
export type SklTrajectoryRecord = z.infer<typeof SklTrajectoryRecordSchema>;
export type SklDistillRecord = z.infer<typeof SklDistillRecordSchema>;
