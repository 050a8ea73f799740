import type { StateViewer } from "../core/state-view.ts";
import { chessStateViewer } from "./chess/state-view.ts";
import { frozenLakeStateViewer } from "./frozenlake/state-view.ts";
import { terminalStateViewer } from "./terminal/state-viewer.ts";
import { webStateViewer } from "./web/state-view.ts";

/** The built-in families' state viewers, by family name. */
const VIEWERS: ReadonlyMap<string, StateViewer> = new Map(
  [frozenLakeStateViewer, chessStateViewer, webStateViewer, terminalStateViewer].map((v) => [v.family, v]),
);

/** The state viewer of a built-in environment family, or undefined for a family without one. */
export function stateViewerFor(family: string): StateViewer | undefined {
  return VIEWERS.get(family);
}

/** The families that have a state viewer, sorted. */
export function stateViewerFamilies(): string[] {
  return [...VIEWERS.keys()].sort();
}
