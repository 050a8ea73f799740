import { describe, expect, it } from "vitest";
import { ACTION_TYPES, sha256Hex } from "../../src/core/index.ts";
import {
  actionTypesForFamily,
  buildAgentMessages,
  defaultSystemPrompt,
  toWireMessages,
} from "../../src/llm/index.ts";
import { PNG_BYTES, policyContext } from "./cases.ts";

describe("agent prompt", () => {
  it("lists every action type with its fields in the system message", () => {
    const system = defaultSystemPrompt();
    for (const type of ACTION_TYPES) expect(system).toContain(`- ${type}:`);
    expect(system).toContain("exactly ONE action");
    expect(defaultSystemPrompt(["move", "done"])).not.toContain("- click:");
  });

  it("shows the instruction, URL, observation, recent actions and the last error", () => {
    const [system, user] = buildAgentMessages(policyContext("wellformed"), { historyLength: 1 });
    expect(system?.role).toBe("system");
    const text = user?.content as string;
    expect(text).toContain("Task: Fill in the form and submit it.");
    expect(text).toContain("URL: http://127.0.0.1/form");
    expect(text).toContain('[12] button "Submit"');
    expect(text).toContain("2. (no valid action; your reply was:");
    expect(text).not.toContain('{"type":"click","elementId":"3"}');
    expect(text).toContain("Your last action failed: no element with id 99 (element_not_found)");
  });

  it("attaches the screenshot as an image part when the observation has its bytes", () => {
    const ctx = policyContext("wellformed");
    const withShot = {
      ...ctx,
      observation: {
        ...ctx.observation,
        screenshot: { mime: "image/png" as const, sha256: sha256Hex(PNG_BYTES), bytes: PNG_BYTES },
      },
    };
    const wire = toWireMessages(buildAgentMessages(withShot));
    const parts = wire[1]?.content as Array<{ type: string; image_url?: { url: string } }>;
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
    expect(parts[1]?.image_url?.url.startsWith("data:image/png;base64,")).toBe(true);
    const noShot = buildAgentMessages(withShot, { includeScreenshot: false });
    expect(typeof noShot[1]?.content).toBe("string");
  });

  it("documents the actions of the task's family only", () => {
    const ctx = policyContext("wellformed");
    const systemFor = (family: string) =>
      buildAgentMessages({ ...ctx, task: { ...ctx.task, family } })[0]?.content as string;
    const web = systemFor("web");
    expect(web).toBe(defaultSystemPrompt(ACTION_TYPES.filter((t) => t !== "shell")));
    expect(web).toContain("- click:");
    expect(web).not.toContain("- shell:");
    const terminal = systemFor("terminal");
    expect(terminal).toContain("- shell:");
    expect(terminal).not.toContain("- click:");
    expect(terminal).not.toContain("- move:");
    expect(systemFor("frozenlake")).toContain("- move:");
    expect(systemFor("frozenlake")).not.toContain("- shell:");
    expect(systemFor("chess")).toContain("- uci:");
    expect(systemFor("chess")).not.toContain("- click:");
    for (const family of ["frozenlake", "chess", "terminal"])
      expect(actionTypesForFamily(family)).toEqual(expect.arrayContaining(["done", "fail"]));
    expect(buildAgentMessages(ctx, { actionTypes: ["shell"] })[0]?.content).toContain("- shell:");
  });

  it("cuts long observations", () => {
    const ctx = policyContext("wellformed");
    const long = { ...ctx, observation: { text: "x".repeat(500) } };
    const text = buildAgentMessages(long, { maxObservationChars: 100 })[1]?.content as string;
    expect(text).toContain("[... 400 more characters]");
  });
});
