import type { EnvironmentSnapshot } from "../../core/environment.ts";
import type { Observation } from "../../core/observation.ts";
import type { Policy } from "../../core/policy.ts";
import type { Random } from "../../core/random.ts";
import type { Task } from "../../core/task.ts";
import type { ChessEnvironment } from "../../envs/chess/chess-environment.ts";
import type { Branch } from "../../knowledge/simulation-knowledge.ts";

export interface SimulationRequest {
  /** The checkpoint of the real environment at s_t. */
  root: EnvironmentSnapshot;
  task: Task;
  /** The environment branches run in (never the real one); its state is overwritten by each restore. */
  simulator: ChessEnvironment;
  policy: Policy;
  n: number;
  h: number;
  /** The generator of branch `b` (derived from stable keys by the caller). */
  randomFor(branch: number): Random;
}

function statusOf(observation: Observation): Branch["status"] {
  const s = observation.data?.status;
  return s === "won" || s === "lost" || s === "draw" || s === "truncated" ? s : "running";
}

/**
 * Localized parallel simulation: N branches from the checkpoint, each restored into the simulator and
 * rolled H agent moves with the simulation policy (the environment's opponent replies as usual), or until
 * the branch ends. Branches run one after another on one simulator (same results as parallel workers,
 * fixed order, so the run is deterministic). A branch whose policy finds no move is left out.
 */
export async function simulateBranches(request: SimulationRequest): Promise<Branch[]> {
  const { simulator, policy, task } = request;
  const branches: Branch[] = [];
  for (let b = 0; b < request.n; b++) {
    const random = request.randomFor(b);
    let observation = await simulator.restore(request.root);
    const moves: string[] = [];
    const replies: string[] = [];
    const raws: string[] = [];
    let total = 0;
    for (let k = 0; k < request.h && statusOf(observation) === "running"; k++) {
      const context = { task, observation, history: [], stepIndex: k };
      const proposal = await policy.propose(context, { n: 1, temperature: 1, random });
      const candidate = proposal.candidates[0];
      if (!candidate || candidate.action === null || candidate.action.type !== "uci") break;
      const result = await simulator.step(candidate.action);
      moves.push(candidate.action.move);
      raws.push(candidate.raw);
      const reply = result.info.opponentMove;
      if (typeof reply === "string") replies.push(reply);
      total += result.reward;
      observation = result.observation;
    }
    if (moves.length === 0) continue;
    branches.push({ branch: b, moves, replies, raws, status: statusOf(observation), return: total });
  }
  return branches;
}
