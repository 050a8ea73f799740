import type { Action, Observation, StateViewer, Task } from "../core/index.ts";
import { UserError } from "../core/index.ts";
import { stateViewerFor } from "../envs/state-viewers.ts";
import { renderContract } from "../worldmodel/eval/render-contract.ts";
import { createSimulator, type SimulatorOptionsInput } from "../worldmodel/runtime/index.ts";
import type { Worldbook } from "../worldmodel/worldbook/schema.ts";
import type { WmContext, WmPrediction, WorldModel } from "./world-model.ts";

function familyOf(book: Worldbook): string {
  const [family, ...others] = book.manifest.families;
  if (family === undefined || others.length > 0)
    throw new UserError(
      "rl.wm_worldbook_families",
      `the worldbook world model needs a book of one family, and this one has ${book.manifest.families.length} (${book.manifest.families.join(", ") || "none"}); build one worldbook per family`,
    );
  return family;
}

/** A prediction's observation: the predicted state rendered from the current one, or an explicit unknown. */
function observed(
  viewer: StateViewer,
  state: Record<string, unknown> | undefined,
  current: Observation,
  task: Task,
  reasons: string,
): Observation {
  if (state === undefined)
    return {
      ...current,
      error: {
        code: "worldmodel_unknown",
        message: `the world model does not know this action here: ${reasons}`,
      },
    };
  return viewer.render(state as never, current, task);
}

/**
 * The world model of a worldbook: the current observation viewed as a state with the family's viewer,
 * the gated simulator's most likely next step (`predict`, no sampling), rendered back in the family's
 * format. It never touches the environment. Success is the predicted reward reaching the task's
 * success threshold (default 1); a step the simulator abstains on comes back as an explicit unknown
 * (error `worldmodel_unknown`, reward 0, not terminated).
 */
export function worldbookWorldModel(book: Worldbook, options: SimulatorOptionsInput = {}): WorldModel {
  const family = familyOf(book);
  const viewer = stateViewerFor(family);
  if (!viewer)
    throw new UserError(
      "rl.wm_worldbook_viewer",
      `the worldbook simulates ${family}, which has no state viewer; build worldbooks of frozenlake, chess, web or terminal traces`,
    );
  // The observation contract renders from where the policy stands (set before each prediction).
  const contract = renderContract(viewer);
  const simulator = createSimulator(book, options, contract.deps);
  return {
    name: "worldbook",
    async predict(action: Action, context: WmContext): Promise<WmPrediction> {
      const { observation, task } = context;
      const state = viewer.view(observation, task);
      contract.at(observation, task);
      const outcomes = await simulator.predict(state, action, { taskId: task.id });
      const best = outcomes.reduce((a, b) => (b.probability > a.probability ? b : a));
      const step = best.step;
      const unknown = step.trace.unknown;
      const reasons = step.trace.rejected.map((r) => r.reason).join("; ");
      return {
        observation: observed(viewer, unknown ? undefined : step.state, observation, task, reasons),
        reward: unknown ? 0 : step.reward,
        terminated: !unknown && step.terminated,
        truncated: false,
        success: !unknown && step.reward >= (task.verifier.successThreshold ?? 1),
      };
    },
  };
}
