import {
  type Action,
  createRandom,
  type Environment,
  type Observation,
  type Random,
  type Task,
  TaskSchema,
  UserError,
} from "../../src/core/index.ts";

/**
 * A two-armed bandit as a real environment for GRPO tests: one step, two legal actions (move left =
 * arm A, move right = arm B); an arm pays (success) with its probability, drawn from the episode seed.
 */
export function createBanditEnvironment(pay: { left: number; right: number }): Environment {
  const task: Task = TaskSchema.parse({
    id: "bandit",
    instruction: "pull the better arm",
    family: "bandit",
    verifier: { kind: "bandit" },
  });
  const legal: Action[] = [
    { type: "move", direction: "left" },
    { type: "move", direction: "right" },
  ];
  let random: Random = createRandom("bandit", 0);
  let paid: boolean | undefined;
  const observation = (): Observation => ({
    text: paid === undefined ? "two arms" : paid ? "paid" : "nothing",
    legalActions: paid === undefined ? legal : [],
  });
  return {
    family: "bandit",
    capabilities: { snapshot: false, replay: true, deterministic: true },
    suite: {
      name: "bandit",
      family: "bandit",
      list: () => [task],
      get: (id) => {
        if (id !== task.id)
          throw new UserError("task.unknown", `unknown task ${id}; the bandit has one: bandit`);
        return task;
      },
    },
    async reset({ seed }) {
      random = createRandom("bandit", seed);
      paid = undefined;
      return observation();
    },
    async step(action) {
      const arm = action.type === "move" && action.direction === "right" ? "right" : "left";
      paid = random.next() < pay[arm];
      return {
        observation: observation(),
        reward: paid ? 1 : 0,
        terminated: true,
        truncated: false,
        info: { arm },
      };
    },
    async evaluate() {
      return {
        reward: paid ? 1 : 0,
        success: paid === true,
        reason: paid ? "paid" : "did not pay",
        metrics: {},
      };
    },
    async fingerprint() {
      return String(paid);
    },
    async close() {},
  };
}
