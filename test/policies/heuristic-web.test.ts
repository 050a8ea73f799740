import { describe, expect, it } from "vitest";
import { createRandom, type Observation, type Task } from "../../src/core/index.ts";
import { parseAxtree } from "../../src/envs/web/accessibility-text.ts";
import { createHeuristicWebPolicy } from "../../src/policies/heuristic-web/heuristic-web-policy.ts";
import { parseInstruction } from "../../src/policies/heuristic-web/instruction.ts";
import { pendingWork, scoreActions } from "../../src/policies/heuristic-web/score.ts";

const LOGIN = `text "Enter the username \\"kofi54\\" and the password \\"paRE496sa\\" and press Log in."
[11] div "Username Password"
  [14] textbox "Username" value=""
  [16] textbox "Password" value="" focused
  [17] button "Log in"`;

const task: Task = {
  id: "t",
  instruction: "",
  family: "web",
  seed: 0,
  split: "train",
  verifier: { kind: "page" },
  tags: [],
};
const obs = (axtree: string, instruction: string): Observation => ({ text: axtree, axtree, instruction });

describe("accessibility text parsing", () => {
  it("reads ids, roles, names, values, options and flags", () => {
    const page = parseAxtree(`${LOGIN}
  [21] combobox "Choose a color:" value="Violet" options=["-- color --","Orange","Violet"]
  [23] switch "Wi-Fi" checked
  [24] button "Next >" disabled`);
    expect(page.elements.map((e) => e.id)).toEqual(["11", "14", "16", "17", "21", "23", "24"]);
    expect(page.elements[2]).toMatchObject({
      role: "textbox",
      name: "Password",
      value: "",
      focused: true,
      depth: 1,
    });
    expect(page.elements[4]?.options).toEqual(["-- color --", "Orange", "Violet"]);
    expect(page.elements[5]?.checked).toBe(true);
    expect(page.elements[6]?.disabled).toBe(true);
    expect(page.texts[0]).toContain('username "kofi54"');
  });
});

describe("instruction parsing", () => {
  it("finds quoted values with their labels, switches and set-to pairs", () => {
    const ins = parseInstruction(
      'Enter the username "kofi54" and the password "paRE496sa". Turn on Dark mode and turn off Wi-Fi, set "Font size" to Large.',
    );
    expect(ins.quoted).toEqual(["kofi54", "paRE496sa", "Font size"]);
    expect(ins.labelled.find((l) => l.value === "kofi54")?.label).toContain("username");
    expect(ins.turnOn).toEqual(["Dark mode"]);
    expect(ins.turnOff).toEqual(["Wi-Fi"]);
    expect(ins.setTo).toEqual([{ name: "Font size", value: "Large" }]);
  });
});

describe("heuristic scoring", () => {
  it("does not submit while fields are empty, and types labelled values into matching fields", () => {
    const page = parseAxtree(LOGIN);
    const ins = parseInstruction(
      'Enter the username "kofi54" and the password "paRE496sa" and press Log in.',
    );
    expect(pendingWork(page, ins)).toBe(2);
    const scored = scoreActions(page, ins, []);
    const best = [...scored].sort((a, b) => b.score - a.score)[0];
    expect(best?.action.type).toBe("type");
    const login = scored.find((s) => s.action.type === "click" && s.action.elementId === "17");
    const typeUser = scored.find(
      (s) => s.action.type === "type" && s.action.elementId === "14" && s.action.text === "kofi54",
    );
    const typeWrong = scored.find(
      (s) => s.action.type === "type" && s.action.elementId === "14" && s.action.text === "paRE496sa",
    );
    expect(typeUser!.score).toBeGreaterThan(typeWrong!.score);
    expect(typeUser!.score).toBeGreaterThan(login!.score);
  });

  it("submits once the work is done", () => {
    const page = parseAxtree(
      LOGIN.replace('value=""', 'value="kofi54"').replace('value="" focused', 'value="•••" focused'),
    );
    const ins = parseInstruction(
      'Enter the username "kofi54" and the password "paRE496sa" and press Log in.',
    );
    expect(pendingWork(page, ins)).toBe(0);
    const best = [...scoreActions(page, ins, [])].sort((a, b) => b.score - a.score)[0];
    expect(best?.action).toEqual({ type: "click", elementId: "17" });
  });

  it("leaves switches already in the asked state alone", () => {
    const page = parseAxtree(`[14] switch "Dark mode"\n[17] switch "Wi-Fi"\n[24] button "Apply"`);
    const ins = parseInstruction("Turn on Dark mode and turn off Wi-Fi, then click Apply.");
    const scored = scoreActions(page, ins, []);
    const dark = scored.find((s) => s.action.type === "click" && s.action.elementId === "14")!;
    const wifi = scored.find((s) => s.action.type === "click" && s.action.elementId === "17")!;
    expect(dark.score).toBeGreaterThan(wifi.score);
  });

  it("scrolls when nothing matches", () => {
    const page = parseAxtree(`[3] button "Zebra"\n[4] button "Yak"`);
    const best = [...scoreActions(page, parseInstruction('Find "Fay Dunn" in the list'), [])].sort(
      (a, b) => b.score - a.score,
    )[0];
    expect(best?.action.type).toBe("scroll");
  });
});

describe("heuristic policy", () => {
  it("is greedy at temperature 0, stochastic at 1, and reproducible for a random key", async () => {
    const policy = createHeuristicWebPolicy();
    const context = {
      task,
      observation: obs(LOGIN, 'Enter the username "kofi54" and the password "paRE496sa" and press Log in.'),
      history: [],
      stepIndex: 0,
    };
    const greedy = await policy.propose(context, { n: 8, temperature: 0, random: createRandom("g") });
    expect(new Set(greedy.candidates.map((c) => c.raw)).size).toBe(1);
    const a = await policy.propose(context, { n: 32, temperature: 1, random: createRandom("k") });
    const b = await policy.propose(context, { n: 32, temperature: 1, random: createRandom("k") });
    expect(b).toEqual(a);
    expect(new Set(a.candidates.map((c) => c.raw)).size).toBeGreaterThan(1);
    for (const c of a.candidates) expect(c.action).not.toBeNull();
  });
});
