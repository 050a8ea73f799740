import { afterAll, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { sleep, startWriter, verify } from "./crash-harness.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Crash safety of batched steps: the writer commits steps in batches of BATCH (and at finishTrajectory)
 * and is killed with SIGKILL at seeded random moments, mostly in the middle of a batch. After every kill
 * the episode in flight is not complete, and the steps that were committed are whole batches in order
 * (see crash-harness.ts for the rest of what is checked).
 */

const KILLS = 16;
const BATCH = 4;

const temp = createTempDirs("crash-batched");
afterAll(() => temp.cleanup());

it(`keeps batched steps consistent across ${KILLS} SIGKILLs of a writer`, async () => {
  const dir = temp.make();
  const random = createRandom("crash-batched-test", 1);
  let running = 0;
  let committedWhileRunning = 0;
  for (let generation = 0; generation < KILLS; generation++) {
    const child = startWriter(dir, generation, BATCH);
    await child.ready;
    await sleep(10 + random.int(250));
    expect(child.process.exitCode, `writer ${generation} exited early:\n${child.stderr()}`).toBeNull();
    child.process.kill("SIGKILL");
    await child.exited;
    const stats = verify(dir, generation, BATCH);
    running += stats.running;
    committedWhileRunning += stats.runningSteps;
  }
  const totals = verify(dir, undefined, BATCH);
  expect(totals.finished).toBeGreaterThan(0);
  // Kills landed mid-episode, and some after a batch of the episode had committed.
  expect(running).toBeGreaterThan(KILLS / 2);
  expect(committedWhileRunning).toBeGreaterThan(0);
}, 300_000);
