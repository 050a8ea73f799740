import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createRuntime, type Environment, type Observation, sha256Hex } from "../../src/core/index.ts";
import { createFrozenLakeEnvironment } from "../../src/envs/frozenlake/index.ts";
import { runSearch, SearchConfigSchema } from "../../src/search/index.ts";
import type { RunStore } from "../../src/store/index.ts";
import { noisyOraclePolicy } from "../search/helpers.ts";

/** A valid 1×1 PNG: the screenshot every observation of `screenshotSearch` carries. */
export const PNG = new Uint8Array(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);
export const PNG_SHA = sha256Hex(PNG);

function withScreenshot(o: Observation): Observation {
  return { ...o, screenshot: { mime: "image/png", sha256: PNG_SHA, bytes: PNG } };
}

/** FrozenLake whose observations carry a screenshot (stored by the search as a content-addressed artefact). */
function screenshotEnvironment(): Environment {
  const env = createFrozenLakeEnvironment({ slippery: false });
  return {
    family: env.family,
    suite: env.suite,
    capabilities: env.capabilities,
    reset: async (o) => withScreenshot(await env.reset(o)),
    step: async (a) => {
      const r = await env.step(a);
      return { ...r, observation: withScreenshot(r.observation) };
    },
    evaluate: () => env.evaluate(),
    fingerprint: () => env.fingerprint(),
    snapshot: () => env.snapshot(),
    restore: async (snapshot) => withScreenshot(await env.restore(snapshot)),
    oracleAction: () => env.oracleAction(),
    close: () => env.close(),
  };
}

/** A small search run whose successful steps have screenshots. */
export async function screenshotSearch(store: RunStore, runId: string): Promise<void> {
  store.createRun({ id: runId, kind: "search", seed: "s", config: {}, codeVersion: "test", createdAtMs: 0 });
  const config = SearchConfigSchema.parse({ maxLiveEnvs: 2 });
  const envs = [screenshotEnvironment(), screenshotEnvironment()];
  const tasks = ["4x4"].map((id) => (envs[0] as Environment).suite.get(id));
  for (const t of tasks) store.putTask(runId, t);
  await runSearch(
    { envs, policy: noisyOraclePolicy(0.8), runtime: createRuntime({ seed: "s" }), store },
    { runId, seed: "s", tasks, config },
  );
  for (const e of envs) await e.close();
}

/** Every file below `dir` (relative paths, sorted): what an export left behind. */
export function filesBelow(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((d) => !d.isDirectory())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}
