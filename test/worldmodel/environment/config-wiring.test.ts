import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime } from "../../../src/core/index.ts";
import { defaultPolicyFor, resolveRunConfig, storedRunConfig } from "../../../src/runner/config.ts";
import { createEnvironmentFromConfig } from "../../../src/runner/environments.ts";
import type { RunRecord } from "../../../src/store/index.ts";
import { type WorldModelEnvironment, writeWorldbook } from "../../../src/worldmodel/index.ts";
import { frozenLakeWorldbook } from "./fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "wm-config-"));
const dir = join(root, "book");
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(async () => {
  const { book } = await frozenLakeWorldbook({ slippery: true }, { taskIds: ["4x4", "8x8"], episodes: 5 });
  writeWorldbook(dir, book);
}, 60_000);

const runtime = createRuntime({ seed: "wiring" });

describe("--env worldmodel:DIR in the config layer", () => {
  it("parses the flag into env worldmodel with the book's absolute directory, hash and family", async () => {
    const config = resolveRunConfig({}, { env: `worldmodel:${relative(process.cwd(), dir)}` });
    expect(config.env).toBe("worldmodel");
    expect(config.worldbook).toEqual({
      dir,
      family: "frozenlake",
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const env = await createEnvironmentFromConfig(config, runtime);
    expect(env.family).toBe("frozenlake");
    expect(env.suite.list().map((t) => t.id)).toEqual(["4x4", "8x8"]);
    await env.close();
  });

  it("takes `env: worldmodel` with `worldbook: DIR` from a config file, and envOptions as simulator options", async () => {
    const config = resolveRunConfig(
      { env: "worldmodel", worldbook: dir, envOptions: { system: "copy" } },
      {},
    );
    const env = await createEnvironmentFromConfig(config, runtime);
    await env.reset({ taskId: "4x4", seed: 0 });
    const r = await env.step({ type: "move", direction: "down" });
    expect((r.info.worldmodel as { system: string }).system).toBe("copy");
    await env.close();
    const bad = resolveRunConfig({ env: "worldmodel", worldbook: dir, envOptions: { system: "magic" } }, {});
    const err = await createEnvironmentFromConfig(bad, runtime).catch((e: unknown) => e);
    expect((err as { category: string }).category).toBe("user");
  });

  it("gives the LLM proposer a chat client from the config's llm endpoint", async () => {
    const config = resolveRunConfig(
      {
        env: `worldmodel:${dir}`,
        envOptions: { proposer: "llm" },
        llm: { baseUrl: "http://127.0.0.1:9/v1", model: "m" },
      },
      {},
    );
    const env = (await createEnvironmentFromConfig(config, runtime)) as WorldModelEnvironment;
    expect(env.simulator.options.proposer).toBe("llm");
    await env.close();
  });

  it("refuses a worldmodel env without a book, and a book for another env", () => {
    expect(() => resolveRunConfig({}, { env: "worldmodel" })).toThrow(/needs a worldbook directory/);
    expect(() => resolveRunConfig({}, { env: "worldmodel:" })).toThrow(/needs the worldbook directory/);
    expect(() => resolveRunConfig({ worldbook: dir }, { env: "frozenlake" })).toThrow(
      /only for the worldmodel environment/,
    );
    expect(() => resolveRunConfig({}, { env: `worldmodel:${join(root, "none")}` })).toThrow(
      expect.objectContaining({ code: "worldbook.invalid" }),
    );
  });

  it("defaults the policy by the family the worldbook simulates", () => {
    expect(defaultPolicyFor(`worldmodel:${dir}`)).toBe("random");
    const terminal = join(root, "terminal-book");
    mkdirSync(terminal);
    writeFileSync(join(terminal, "manifest.json"), JSON.stringify({ families: ["terminal"] }));
    expect(defaultPolicyFor(`worldmodel:${terminal}`)).toBe("template");
    expect(defaultPolicyFor(`worldmodel:${join(root, "none")}`)).toBe("random");
  });

  it("a stored run whose book was rebuilt since is refused (worldbook.changed)", async () => {
    const config = resolveRunConfig({}, { env: `worldmodel:${dir}` });
    const stored = storedRunConfig({
      id: "r",
      kind: "run",
      config: { ...config, worldbook: { ...config.worldbook, hash: "0".repeat(64) } },
    } as unknown as RunRecord);
    const err = await createEnvironmentFromConfig(stored, runtime).catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe("worldbook.changed");
  });
});
