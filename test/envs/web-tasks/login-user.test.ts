import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebEnvironment, type WebEnvironment } from "../../../src/envs/web/index.ts";
import { runOracle } from "./helpers.ts";

describe("login-user: both seeded layouts exist", () => {
  let env: WebEnvironment;
  beforeAll(async () => {
    env = await createWebEnvironment({ observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env.close();
  });

  it("the seed decides which field comes first (the two branches differ), and the oracle solves both", async () => {
    const firstField = new Map<number, string>();
    for (let seed = 0; seed < 8; seed++) {
      const obs = await env.reset({ taskId: "login-user", seed });
      const first = /textbox "(Username|Password)"/.exec(obs.axtree ?? "")?.[1];
      expect(first, obs.axtree).toBeDefined();
      firstField.set(seed, first as string);
    }
    expect(new Set(firstField.values())).toEqual(new Set(["Username", "Password"]));
    for (const layout of ["Username", "Password"]) {
      const seed = [...firstField].find(([, f]) => f === layout)?.[0] as number;
      const run = await runOracle(env, "login-user", seed, 10);
      expect(run.errors).toEqual([]);
      expect(run.result.reward, `seed ${seed}`).toBe(1);
    }
  });
});
