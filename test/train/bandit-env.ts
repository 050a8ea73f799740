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
 * `pay: "coin"`: at reset the episode seed draws which one arm pays (always), unseen in the
 * observation — only a look-ahead tells; this variant has snapshot/restore (a perfect world model)
 * and 8 tasks `coin-0`…`coin-7` of the same observation (so a GRPO iteration sees 8 group seeds).
 */
export function createBanditEnvironment(pay: { left: number; right: number } | "coin"): Environment {
  const tasks: Task[] = (pay === "coin" ? [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `coin-${i}`) : ["bandit"]).map(
    (id) =>
      TaskSchema.parse({
        id,
        instruction: "pull the better arm",
        family: "bandit",
        verifier: { kind: "bandit" },
      }),
  );
  let task = tasks[0] as Task;
  const legal: Action[] = [
    { type: "move", direction: "left" },
    { type: "move", direction: "right" },
  ];
  let random: Random = createRandom("bandit", 0);
  let paid: boolean | undefined;
  let coinRight = false;
  const observation = (): Observation => ({
    text: paid === undefined ? "two arms" : paid ? "paid" : "nothing",
    legalActions: paid === undefined ? legal : [],
  });
  return {
    family: "bandit",
    capabilities: { snapshot: pay === "coin", replay: true, deterministic: true },
    suite: {
      name: "bandit",
      family: "bandit",
      list: () => [...tasks],
      get: (id) => {
        const found = tasks.find((t) => t.id === id);
        if (!found)
          throw new UserError(
            "task.unknown",
            `unknown task ${id}; the bandit has ${tasks.map((t) => t.id).join(", ")}`,
          );
        return found;
      },
    },
    async reset({ taskId, seed }) {
      task = tasks.find((t) => t.id === taskId) ?? task;
      random = createRandom("bandit", seed);
      paid = undefined;
      if (pay === "coin") coinRight = random.next() < 0.5;
      return observation();
    },
    async step(action) {
      const arm = action.type === "move" && action.direction === "right" ? "right" : "left";
      paid = pay === "coin" ? (arm === "right") === coinRight : random.next() < pay[arm];
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
    ...(pay === "coin"
      ? {
          async snapshot() {
            return { family: "bandit", taskId: task.id, seed: 0, state: { paid, coinRight } };
          },
          async restore(saved: { state: unknown }) {
            ({ paid, coinRight } = saved.state as { paid: boolean | undefined; coinRight: boolean });
            return observation();
          },
        }
      : {}),
    async close() {},
  };
}
