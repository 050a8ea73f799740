import { afterEach, describe, expect, it } from "vitest";
import { createRandom, ProviderError } from "../../src/core/index.ts";
import { createLlmPolicy } from "../../src/policies/llm-policy.ts";
import { MALFORMED, POLICY_TEMPERATURE, policyContext, WELL_FORMED } from "./cases.ts";
import { type ClientSetup, replayClient } from "./helpers.ts";

let setup: ClientSetup | undefined;
afterEach(async () => {
  await setup?.server.close();
  setup = undefined;
});

describe("llm policy against the replay server", () => {
  it("turns every malformed reply into a candidate with the right parse error and the raw text", async () => {
    setup = await replayClient("policy.json");
    const policy = createLlmPolicy({ client: setup.client });
    expect(policy.name).toBe("llm:replay-model");
    const proposal = await policy.propose(policyContext("malformed"), {
      n: MALFORMED.length,
      temperature: POLICY_TEMPERATURE,
      random: createRandom("llm-test", "malformed"),
    });
    expect(proposal.candidates).toHaveLength(MALFORMED.length);
    MALFORMED.forEach((c, i) => {
      const candidate = proposal.candidates[i];
      expect(candidate, c.name).toBeDefined();
      expect(candidate?.action, c.name).toBeNull();
      expect(candidate?.raw, c.name).toBe(c.text);
      expect(candidate?.parseError?.code, c.name).toBe(c.code);
      expect(candidate?.parseError?.message.length, c.name).toBeGreaterThan(0);
      if (c.mentions) expect(candidate?.parseError?.message, c.name).toContain(c.mentions);
    });
    expect(proposal.usage).toEqual({ promptTokens: 512, completionTokens: 300, calls: 1 });
  });

  it("parses well-formed replies (bare, fenced, after Action:, inside prose)", async () => {
    setup = await replayClient("policy.json");
    const policy = createLlmPolicy({ client: setup.client });
    const proposal = await policy.propose(policyContext("wellformed"), {
      n: WELL_FORMED.length,
      temperature: POLICY_TEMPERATURE,
      random: createRandom("llm-test", "wellformed"),
    });
    expect(proposal.candidates).toEqual(WELL_FORMED.map((c) => ({ action: c.action, raw: c.text })));
    expect(proposal.usage?.calls).toBe(1);
  });

  it("sends the prompt with the sampling settings and a seed drawn from the caller's random", async () => {
    setup = await replayClient("policy.json");
    const policy = createLlmPolicy({ client: setup.client });
    await policy.propose(policyContext("wellformed"), {
      n: WELL_FORMED.length,
      temperature: POLICY_TEMPERATURE,
      random: createRandom("llm-test", "wellformed"),
    });
    const body = setup.server.requests[0]?.body as {
      messages: Array<{ role: string; content: string }>;
      n: number;
      temperature: number;
      seed: number;
    };
    expect(body.n).toBe(WELL_FORMED.length);
    expect(body.temperature).toBe(POLICY_TEMPERATURE);
    expect(body.seed).toBe(createRandom("llm-test", "wellformed").int(2_147_483_647));
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[1]?.content).toContain("Fill in the form and submit it.");
  });

  it("throws ProviderError when the provider fails (here: no recorded response)", async () => {
    setup = await replayClient("policy.json");
    const policy = createLlmPolicy({ client: setup.client });
    const error = await policy
      .propose(policyContext("malformed"), { n: 2, temperature: 0, random: createRandom("other") })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("provider.http_404");
  });
});
