/** Time source. `nowMs` is wall-clock milliseconds since the epoch; `monotonicMs` only measures durations. */
export interface Clock {
  nowMs(): number;
  monotonicMs(): number;
}

/** A clock that only moves when told to: deterministic tests and reproducible stored timestamps. */
export function createManualClock(startMs = 0): Clock & { advance(ms: number): void } {
  let t = startMs;
  return {
    nowMs: () => t,
    monotonicMs: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}
