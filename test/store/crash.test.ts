import { afterAll, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { removeWriterBundle, sleep, startWriter, verify, waitForFinished } from "./crash-harness.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Crash safety: a child process writes episodes and is killed with SIGKILL at seeded random moments,
 * again and again on the same database (see crash-harness.ts for what is checked after every kill).
 */

const KILLS = 24;

const temp = createTempDirs("crash");
afterAll(() => {
  removeWriterBundle();
  temp.cleanup();
});

it(`keeps the database consistent across ${KILLS} SIGKILLs of a writer`, async () => {
  const dir = temp.make();
  const random = createRandom("crash-test", 1);
  let interruptedMidEpisode = 0;
  // Each writer starts up while the one before runs, and waits for `go` (start-up is most of the time).
  let child = startWriter(dir, 0);
  try {
    for (let generation = 0; generation < KILLS; generation++) {
      child.go();
      const current = child;
      if (generation + 1 < KILLS) child = startWriter(dir, generation + 1);
      if (generation % 8 === 7) {
        // Now and then kill during start-up (opening, recovering and migrating the database).
        await sleep(random.int(40));
      } else {
        await current.ready;
        // At least one finished episode per generation, however slow the machine, then a random moment.
        await waitForFinished(dir, generation);
        await sleep(random.int(250));
      }
      const stillRunning = current.process.exitCode === null;
      expect(stillRunning, `writer ${generation} exited early:\n${current.stderr()}`).toBe(true);
      current.process.kill("SIGKILL");
      await current.exited;
      const stats = verify(dir, generation);
      interruptedMidEpisode += stats.interrupted;
    }
  } finally {
    child.process.kill("SIGKILL");
  }
  const totals = verify(dir, undefined);
  // Every generation but those killed during start-up finished at least one episode.
  expect(totals.finished).toBeGreaterThanOrEqual(KILLS - KILLS / 8);
  expect(interruptedMidEpisode).toBeGreaterThan(KILLS / 2);
}, 300_000);
