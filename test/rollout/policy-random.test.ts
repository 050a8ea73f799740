import { expect, it } from "vitest";
import { createRandom, createRuntime, type Policy, type Random } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { episodeSeed, runEpisodes } from "../../src/rollout/index.ts";

/*
 * The rollout hands the policy one random stream per episode, seeded once from
 * policy|task|episode seed|episode index (no hashing per step), so the draws are reproducible.
 */

it("hands the policy one stream per episode, seeded from the episode's stable keys", async () => {
  const env = createFrozenLakeEnvironment({ slippery: false });
  const seen: Array<{ episode: number; random: Random; draw: number }> = [];
  let episode = -1;
  const policy: Policy = {
    name: "recorder",
    async propose(context, options) {
      if (context.stepIndex === 0) episode += 1;
      seen.push({ episode, random: options.random, draw: options.random.next() });
      return { candidates: [{ action: { type: "move", direction: "left" }, raw: "left" }] };
    },
  };
  await runEpisodes(
    { env, policy, runtime: createRuntime({ seed: "s" }) },
    { runId: "run", tasks: [env.suite.get("4x4")], episodes: 2, seed: "s", temperature: 1, maxSteps: 5 },
  );
  await env.close();
  expect(seen).toHaveLength(10);
  for (const e of [0, 1]) {
    const mine = seen.filter((s) => s.episode === e);
    expect(new Set(mine.map((s) => s.random)).size).toBe(1);
    const expected = createRandom("policy", "4x4", episodeSeed("s", "4x4", e), e);
    expect(mine.map((s) => s.draw)).toEqual(mine.map(() => expected.next()));
  }
  expect(seen[0]?.random).not.toBe(seen[5]?.random);
});
