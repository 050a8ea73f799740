import { afterAll, expect, it } from "vitest";
import { createRandom } from "../../src/core/index.ts";
import { sleep, startWriter, verify, waitForFinished } from "./crash-harness.ts";
import { createTempDirs } from "./temp-dirs.ts";

/*
 * Crash safety: a child process writes episodes and is killed with SIGKILL at seeded random moments,
 * again and again on the same database (see crash-harness.ts for what is checked after every kill).
 */

const KILLS = 24;

const temp = createTempDirs("crash");
afterAll(() => temp.cleanup());

it(`keeps the database consistent across ${KILLS} SIGKILLs of a writer`, async () => {
  const dir = temp.make();
  const random = createRandom("crash-test", 1);
  let interruptedMidEpisode = 0;
  for (let generation = 0; generation < KILLS; generation++) {
    const child = startWriter(dir, generation);
    if (generation % 8 === 7) {
      // Now and then kill during start-up (opening, recovering and migrating the database).
      await sleep(random.int(400));
    } else {
      await child.ready;
      // At least one finished episode per generation, however slow the machine, then a random moment.
      await waitForFinished(dir, generation);
      await sleep(random.int(250));
    }
    const stillRunning = child.process.exitCode === null;
    expect(stillRunning, `writer ${generation} exited early:\n${child.stderr()}`).toBe(true);
    child.process.kill("SIGKILL");
    await child.exited;
    const stats = verify(dir, generation);
    interruptedMidEpisode += stats.running;
  }
  const totals = verify(dir, undefined);
  // Every generation but those killed during start-up finished at least one episode.
  expect(totals.finished).toBeGreaterThanOrEqual(KILLS - KILLS / 8);
  expect(interruptedMidEpisode).toBeGreaterThan(KILLS / 2);
}, 300_000);
