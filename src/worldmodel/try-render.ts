import { type Observation, type StateRecord, type StateViewer, type Task, UserError } from "../core/index.ts";

/**
 * `state` rendered by the family's viewer from `previous`, or the viewer's reason when it cannot show
 * it (a UserError: an impossible chess position, say). The observation contract of the world-model
 * environment, the evaluation and the RL world model; other errors are thrown.
 */
export function tryRender(
  viewer: StateViewer,
  state: StateRecord,
  previous: Observation,
  task: Task | undefined,
): { observation: Observation } | { reason: string } {
  try {
    return { observation: viewer.render(state, previous, task) };
  } catch (error) {
    if (error instanceof UserError) return { reason: error.message };
    throw error;
  }
}
