/**
 * Child process of crash.test.ts: writes episodes to the SQLite store in `dir` until it is killed.
 *   node --import tsx test/store/crash-writer.ts <dir> <generation> [<batchSteps>]
 * With batchSteps, steps (and the starts and ends between them) commit in batches of exactly that many
 * steps (no time limit), and the writer pauses a few milliseconds after each start, while the previous
 * episode's end waits in the batch (so that kills land between an end and its commit).
 * After each startTrajectory returns it appends "<id> started" to dir/journal.log, and after each
 * finishTrajectory returns "<id> <status>" (the end may still wait in the store's batch). It waits for a "go" line on stdin before opening the store
 * (the parent starts the next writer while the current one runs), and prints "ready"
 * once the store is open. Every step is deterministic from (generation, episode, index), so the parent
 * can check contents.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { createRandom, type Image, sha256Hex } from "../../src/core/index.ts";
import { openSqliteStore } from "../../src/store/index.ts";
import { CRASH_RUN_ID, crashStepRaw, JOURNAL_FILE } from "./crash-shared.ts";

/** The writer exits on its own after this long, so an orphan never runs forever. */
const MAX_RUNTIME_MS = 30_000;
/** The batched writer's pause after a start (the previous end is waiting then). */
const PAUSE_MS = 8;
const pause = new Int32Array(new SharedArrayBuffer(4));

function bytesOf(random: ReturnType<typeof createRandom>, size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = random.int(256);
  return out;
}

function main(): void {
  const [dir, generationArg, batchArg] = process.argv.slice(2);
  if (dir === undefined || generationArg === undefined) {
    throw new Error("usage: crash-writer.ts <dir> <generation> [<batchSteps>]");
  }
  const generation = Number(generationArg);
  const random = createRandom("crash-writer", generation);
  const store = openSqliteStore({
    dir,
    ...(batchArg === undefined ? {} : { batchSteps: Number(batchArg), batchMs: 1e9 }),
  });
  if (store.getRun(CRASH_RUN_ID) === undefined) {
    store.createRun({
      id: CRASH_RUN_ID,
      kind: "crash",
      seed: "0",
      config: {},
      codeVersion: "test",
      createdAtMs: 0,
    });
  }
  const journal = join(dir, JOURNAL_FILE);
  // A small pool of screenshots shared across episodes (dedup), plus fresh ones now and then.
  const pool: Image[] = [];
  for (let i = 0; i < 4; i++) {
    const bytes = bytesOf(random, 2_000 + random.int(30_000));
    pool.push({ mime: "image/png", sha256: sha256Hex(bytes), bytes });
  }
  process.stdout.write("ready\n");

  const started = Date.now();
  let clock = generation * 1_000_000;
  for (let episode = 0; Date.now() - started < MAX_RUNTIME_MS; episode++) {
    const id = `g${generation}-e${episode}`;
    const intended = 5 + random.int(26);
    store.startTrajectory({
      id,
      runId: CRASH_RUN_ID,
      taskId: `task-${episode % 3}`,
      episodeIndex: generation * 100_000 + episode,
      seed: episode,
      policy: "crash-writer",
      startedAtMs: clock++,
      meta: { intended, generation },
    });
    appendFileSync(journal, `${id} started\n`);
    if (batchArg !== undefined && episode > 0) Atomics.wait(pause, 0, 0, PAUSE_MS);
    for (let index = 0; index < intended; index++) {
      let screenshot: Image | undefined;
      const roll = random.next();
      if (roll < 0.05) {
        const bytes = bytesOf(random, 1_000 + random.int(20_000));
        screenshot = { mime: "image/png", sha256: sha256Hex(bytes), bytes };
      } else if (roll < 0.5) {
        screenshot = random.pick(pool);
      }
      store.appendStep(id, {
        index,
        observation: { text: `obs ${index}`, ...(screenshot ? { screenshot } : {}) },
        action: { type: "move", direction: random.pick(["left", "down", "right", "up"] as const) },
        raw: crashStepRaw(id, index),
        reward: index === intended - 1 ? 1 : 0,
        terminated: index === intended - 1,
        truncated: false,
        info: {},
        timeMs: 1,
      });
    }
    const failed = random.next() < 0.1;
    store.finishTrajectory(
      id,
      failed
        ? {
            status: "infra_failed",
            endedAtMs: clock++,
            error: { code: "env.crashed", category: "environment", message: "simulated" },
          }
        : {
            status: "complete",
            endedAtMs: clock++,
            outcome: { reward: 1, success: true, reason: "done", metrics: {} },
          },
    );
    appendFileSync(journal, `${id} ${failed ? "infra_failed" : "complete"}\n`);
  }
  store.close();
}

let input = "";
process.stdin.on("data", (d: Buffer) => {
  input += d.toString();
  if (!input.includes("go\n")) return;
  main();
  process.exit(0);
});
process.stdin.on("end", () => process.exit(0)); // the parent went away before "go"
