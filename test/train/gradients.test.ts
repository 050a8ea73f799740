import { describe, expect, it } from "vitest";
import { createRandom, type PolicyContext } from "../../src/core/index.ts";
import {
  type Features,
  logitsOf,
  Parameters,
  scoreState,
  softmax,
  type TrainableKind,
} from "../../src/policies/trainable/index.ts";
import {
  clippedPolicyLoss,
  type PolicyGradientStep,
  type WeightedStep,
  weightedCrossEntropy,
} from "../../src/train/index.ts";
import { checkLossGradient } from "./finite-difference.ts";
import { frozenLakeWalk } from "./frozenlake-walk.ts";

/** A web page context (accessibility text as the web environment writes it). */
function webContext(): PolicyContext {
  const axtree = [
    '[1] textbox "Username"',
    '[2] textbox "Password"',
    '[3] button "Log in"',
    '[4] link "Help"',
  ].join("\n");
  return {
    task: {
      id: "login",
      instruction: 'Enter the username "kofi54" and log in',
      family: "web",
      seed: 0,
      split: "train",
      verifier: { kind: "page" },
      tags: [],
    },
    observation: { text: axtree, axtree, instruction: 'Enter the username "kofi54" and log in' },
    history: [{ observation: { text: axtree }, action: { type: "click", elementId: "1" }, raw: "" }],
    stepIndex: 1,
  };
}

/** Random non-zero weights on every feature of the states, so every softmax is off uniform. */
function randomParams(states: ReadonlyArray<ReadonlyArray<Features>>, seed: string): Parameters {
  const random = createRandom("grad-check", seed);
  const p = new Parameters();
  for (const fs of states) for (const f of fs) for (const [name] of f) p.set(name, random.next() * 2 - 1);
  return p;
}

async function statesOf(kind: TrainableKind) {
  const contexts = [
    ...(await frozenLakeWalk(["right", "right", "down", "down"])),
    ...(kind === "linear" ? [webContext()] : []),
  ];
  return contexts.map((c) => scoreState(kind, c));
}

describe.each(["tabular", "linear"] as const)("gradients of the %s policy", (kind) => {
  it("weighted cross-entropy matches finite differences (with L2)", async () => {
    const states = await statesOf(kind);
    const params = randomParams(
      states.map((s) => s.features),
      kind,
    );
    const steps: WeightedStep[] = states.map((s, i) => ({
      features: s.features,
      chosen: i % s.actions.length,
      weight: 0.5 + i,
    }));
    const checked = checkLossGradient(params, (p) =>
      weightedCrossEntropy(p, steps, { l2: 0.1, temperature: 0.7 }),
    );
    expect(checked).toBeGreaterThanOrEqual(kind === "tabular" ? 16 : 10);
  });

  it("the clipped policy-gradient loss with KL matches finite differences", async () => {
    const states = await statesOf(kind);
    const params = randomParams(
      states.map((s) => s.features),
      kind,
    );
    const reference = randomParams(
      states.map((s) => s.features),
      `${kind}-ref`,
    );
    const options = { clip: 0.2, kl: 0.3, temperature: 1.3 };
    // Old probabilities put some ratios inside the band and some outside it, for both signs of A.
    const factors = [1.05, 0.5, 2, 0.95, 1.6];
    const steps: PolicyGradientStep[] = states.map((s, i) => {
      const chosen = (i + 1) % s.actions.length;
      const probs = softmax(logitsOf(params, s.features), options.temperature);
      return {
        features: s.features,
        chosen,
        advantage: i % 2 === 0 ? 1.2 : -0.7,
        oldProb: (probs[chosen] ?? 0) / (factors[i % factors.length] ?? 1),
        reference: softmax(logitsOf(reference, s.features), options.temperature),
      };
    });
    const result = clippedPolicyLoss(params, steps, options);
    expect(result.kl).toBeGreaterThan(0);
    checkLossGradient(params, (p) => clippedPolicyLoss(p, steps, options));
    // A clipped step contributes no policy gradient: with only clipped steps and no KL the gradient is 0.
    const clippedOnly = steps.map((s) => ({ ...s, advantage: 1, oldProb: s.oldProb * 0 + 1e-3 }));
    const noKl = clippedPolicyLoss(params, clippedOnly, { ...options, kl: 0 });
    expect([...noKl.grad.values.values()].every((v) => v === 0)).toBe(true);
  });
});
