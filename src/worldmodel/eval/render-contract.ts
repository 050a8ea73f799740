import type { Observation, StateRecord, StateViewer, Task } from "../../core/index.ts";
import type { SimulatorDeps } from "../runtime/index.ts";
import { tryRender } from "../try-render.ts";

/**
 * The observation contract the world-model environment enforces, for the evaluation's simulators: a
 * proposal the family's viewer cannot render (an impossible chess position) is rejected by the
 * validation gate. `at` names the observation and task the next predictions render from.
 */
export function renderContract(
  viewer: StateViewer,
  deps: SimulatorDeps = {},
): { deps: SimulatorDeps; at(previous: Observation, task: Task | undefined): void } {
  let previous: Observation | undefined;
  let task: Task | undefined;
  const observable = (state: StateRecord): string | undefined => {
    if (!previous) return undefined;
    const r = tryRender(viewer, state, previous, task);
    return "reason" in r ? r.reason : undefined;
  };
  return {
    deps: { ...deps, observable },
    at(o, t) {
      previous = o;
      task = t;
    },
  };
}
