import type { RunStore } from "../store/index.ts";

/** What every page reads: the run store (opened read-only) and the directories given to `rehearsal ui`. */
export interface UiContext {
  store: RunStore;
  /** The store directory (its SQLite database also holds the SKL knowledge tables). */
  storeDir: string;
  /** Worldbook directories (`--worldbook`, plus those found under the store directory). */
  worldbooks: ReadonlyArray<string>;
  /** SKL output directories (`--skl`): their JSON reports give the learning curves. */
  sklDirs: ReadonlyArray<string>;
}

/** A page's answer: HTML, or not found (the server answers 404 with the message). */
export type PageResult = { html: string } | { notFound: string };

export const PAGE_SIZE = 50;
