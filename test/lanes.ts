/**
 * Lanes: environments (or anything costly to open) that a test file's concurrent tests borrow one at a
 * time. A web test mostly waits on its page (a settle waits for animation frames, a navigation for the
 * task server), so tests that each play on a lane of their own keep the cores busy where one
 * environment played every case in turn. A lane is opened when a test asks and none is idle (at most
 * as many as run at once: Vitest's `maxConcurrency` bounds a file's concurrent tests) and is handed to
 * one test at a time, so each test still plays alone on its environment, exactly as before.
 */

/**
 * The timeout of a test that shares the machine with the file's other lanes: its wall time holds their
 * work too (a test alone took a fraction of it), so it is the budget of the whole file, not of one case.
 */
export const LANE_TIMEOUT_MS = 900_000;

export interface Lanes<T> {
  /** Runs `use` on an idle lane (opened if none is), which is idle again when `use` settles. */
  with<R>(use: (lane: T) => Promise<R>): Promise<R>;
  /** Closes every lane opened (call in `afterAll`). */
  close(): Promise<void>;
}

export function createLanes<T>(open: () => Promise<T>, close: (lane: T) => Promise<void>): Lanes<T> {
  const all: Promise<T>[] = [];
  const idle: T[] = [];
  const lanes: Lanes<T> = {
    async with(use) {
      let lane = idle.pop();
      if (lane === undefined) {
        const opening = open();
        all.push(opening);
        lane = await opening;
      }
      try {
        return await use(lane);
      } finally {
        idle.push(lane);
      }
    },
    async close() {
      const opened = await Promise.allSettled(all.splice(0));
      idle.length = 0;
      await Promise.all(opened.flatMap((o) => (o.status === "fulfilled" ? [close(o.value)] : [])));
    },
  };
  return lanes;
}
