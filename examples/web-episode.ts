// One episode of a built-in web task in a real Chromium (Debian's /usr/bin/chromium, or
// REHEARSAL_CHROMIUM), played by the task's own oracle, then the stored steps read back.
// Run from a checkout: node --conditions=rehearsal-source --import tsx examples/web-episode.ts [TASK]
import { createMemoryStore, createOraclePolicy, createRuntime, runEpisode } from "rehearsal";
import { createWebEnvironment } from "rehearsal/envs/web";

const taskId = process.argv[2] ?? "click-button";
const env = await createWebEnvironment({ observation: { screenshot: false } });
try {
  const store = createMemoryStore();
  const runId = "example-web";
  store.createRun({ id: runId, kind: "run", seed: "1", config: {}, codeVersion: "example", createdAtMs: 0 });
  const task = env.suite.get(taskId);
  store.putTask(runId, task);
  const result = await runEpisode(
    { env, policy: createOraclePolicy(), runtime: createRuntime({ seed: "1" }), store },
    { runId, trajectoryId: "traj-1", task, episodeIndex: 0, seed: 1, temperature: 1 },
  );
  const trajectory = store.getTrajectory("traj-1");
  console.log(
    `${taskId}: ${result.status}, success ${result.outcome?.success}, ${result.steps} steps, ${trajectory?.steps.length ?? 0} stored`,
  );
  store.close();
} finally {
  await env.close();
}
