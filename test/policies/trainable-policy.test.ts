import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createRandom, type PolicyContext, type Task, TaskSchema } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import {
  candidateActions,
  createTrainablePolicy,
  emptyCheckpoint,
  linearFeatures,
  Parameters,
  readCheckpoint,
  tabularFeatures,
  writeCheckpoint,
} from "../../src/policies/trainable/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-trainable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function frozenLakeStart(): Promise<PolicyContext> {
  const env = createFrozenLakeEnvironment({ slippery: false });
  const task = env.suite.get("4x4");
  const observation = await env.reset({ taskId: task.id, seed: 0 });
  await env.close();
  return { task, observation, history: [], stepIndex: 0 };
}

const task = (family: string, instruction: string): Task =>
  TaskSchema.parse({ id: "t", instruction, family, verifier: { kind: "x" } });

describe("Parameters", () => {
  it("keeps every weight when the array grows (more than its initial 16 slots)", () => {
    const weights = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i + 1]));
    const p = Parameters.from(weights);
    expect(p.toRecord()).toEqual(weights);
    expect(p.clone().toRecord()).toEqual(weights);
  });
});

describe("trainable policies", () => {
  it("are greedy at temperature 0 and honour the temperature otherwise", async () => {
    const context = await frozenLakeStart();
    const right = { type: "move", direction: "right" } as const;
    const params = Parameters.from({ [tabularFeatures(context, right)[0]?.[0] ?? ""]: 2 });
    const policy = createTrainablePolicy("tabular", params);
    const greedy = await policy.propose(context, { n: 5, temperature: 0, random: createRandom("t", 1) });
    expect(greedy.candidates.map((c) => c.action)).toEqual(Array(5).fill(right));
    const share = async (temperature: number) => {
      const p = await policy.propose(context, { n: 400, temperature, random: createRandom("t", 2) });
      return (
        p.candidates.filter((c) => c.action?.type === "move" && c.action.direction === "right").length / 400
      );
    };
    // π(right) = e²/(e²+3) ≈ 0.71 at T=1; ≈ 0.35 at T=4 (e^0.5/(e^0.5+3)).
    expect(await share(1)).toBeGreaterThan(0.6);
    expect(await share(4)).toBeLessThan(0.45);
    const again = await policy.propose(context, { n: 20, temperature: 1, random: createRandom("t", 3) });
    const repeat = await policy.propose(context, { n: 20, temperature: 1, random: createRandom("t", 3) });
    expect(again).toEqual(repeat);
  });

  it("enumerate web and terminal candidates from the model-free policies, with named features", () => {
    const axtree = '[1] textbox "Username"\n[2] button "Log in"';
    const web: PolicyContext = {
      task: task("web", 'Type "kofi54" as the username and log in'),
      observation: { text: axtree, axtree },
      history: [],
      stepIndex: 0,
    };
    const actions = candidateActions(web);
    expect(actions).toContainEqual({ type: "click", elementId: "2" });
    expect(actions.some((a) => a.type === "type" && a.text === "kofi54")).toBe(true);
    expect(actions).toContainEqual({ type: "done" });
    const names = linearFeatures(web, { type: "click", elementId: "2" }).map(([n]) => n);
    expect(names).toContain("web:role=button|type=click");
    expect(names).toContain("web:overlap=1|type=click");
    const terminal: PolicyContext = {
      task: task("terminal", "count the lines of ~/notes.txt"),
      observation: { text: "$", data: { stdout: "", exitCode: 0 } },
      history: [],
      stepIndex: 0,
    };
    const commands = candidateActions(terminal);
    expect(commands.some((a) => a.type === "shell")).toBe(true);
    const shell = commands.find((a) => a.type === "shell");
    const verb = shell?.type === "shell" ? shell.command.split(" ")[0] : "";
    expect(linearFeatures(terminal, shell ?? { type: "done" }).map(([n]) => n)).toContain(
      `term:verb=${verb}`,
    );
  });

  it("write and read versioned checkpoints; anything else is a user error", () => {
    const file = join(dir, "c.json");
    const c = { ...emptyCheckpoint("linear", "web"), weights: { bias: 0.5 } };
    writeCheckpoint(file, c);
    expect(readCheckpoint(file)).toEqual(c);
    writeFileSync(file, JSON.stringify({ ...c, version: 2 }));
    expect(() => readCheckpoint(file)).toThrow(/version-1/);
    writeFileSync(file, "{");
    expect(() => readCheckpoint(file)).toThrow(/not valid JSON/);
  });
});
