import { afterAll, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { removeWriterBundle, sleep, startWriter, verify } from "./crash-harness.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Crash safety of batched steps: the writer commits steps, starts and ends in batches of BATCH steps
 * and is killed with SIGKILL at seeded random moments, mostly in the middle of a batch, often while an
 * episode's end waits in the batch. After every kill the episode in flight is not complete, the steps
 * that were committed are whole batches in order, and a lost end leaves its episode unfinished (see
 * crash-harness.ts for the rest of what is checked).
 */

const KILLS = 16;
const BATCH = 4;

const temp = createTempDirs("crash-batched");
afterAll(() => {
  removeWriterBundle();
  temp.cleanup();
});

it(`keeps batched steps consistent across ${KILLS} SIGKILLs of a writer`, async () => {
  const dir = temp.make();
  const random = createRandom("crash-batched-test", 1);
  let interrupted = 0;
  let committedWhileRunning = 0;
  let lostEnds = 0;
  // Each writer starts up while the one before runs, and waits for `go` (start-up is most of the time).
  let child = startWriter(dir, 0, BATCH);
  try {
    for (let generation = 0; generation < KILLS; generation++) {
      child.go();
      const current = child;
      if (generation + 1 < KILLS) child = startWriter(dir, generation + 1, BATCH);
      await current.ready;
      await sleep(10 + random.int(250));
      expect(current.process.exitCode, `writer ${generation} exited early:\n${current.stderr()}`).toBeNull();
      current.process.kill("SIGKILL");
      await current.exited;
      const stats = verify(dir, generation, BATCH);
      interrupted += stats.interrupted;
      committedWhileRunning += stats.runningSteps;
      lostEnds += stats.lostEnds;
    }
  } finally {
    child.process.kill("SIGKILL");
  }
  const totals = verify(dir, undefined, BATCH);
  expect(totals.finished).toBeGreaterThan(0);
  // Kills landed mid-episode, and some after a batch of the episode had committed.
  expect(interrupted).toBeGreaterThan(KILLS / 2);
  expect(committedWhileRunning).toBeGreaterThan(0);
  // Kills landed between an end (finishTrajectory had returned) and its commit.
  expect(lostEnds).toBeGreaterThan(0);
}, 300_000);
