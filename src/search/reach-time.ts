/**
 * Time spent reaching children's states, over a whole search: `wallMs`, the wall time during which
 * at least one child of any tree was reaching its state (the union of all the reaches: two trees may
 * run at once, and their per-tree figures summed would count the time both reach twice), and
 * `envMs`, the sum of the reaches' own durations (environment time: at N live environments the
 * search has N times its wall time of it).
 */
export class ReachTime {
  private reaching = 0;
  private since = 0;
  private wall = 0;
  private env = 0;

  /** A reach starts at `nowMs`; returns the function that ends it. */
  begin(nowMs: number): (endMs: number) => void {
    if (this.reaching === 0) this.since = nowMs;
    this.reaching += 1;
    let ended = false;
    return (endMs) => {
      if (ended) return;
      ended = true;
      this.env += endMs - nowMs;
      this.reaching -= 1;
      if (this.reaching === 0) this.wall += endMs - this.since;
    };
  }

  figures(): { wallMs: number; envMs: number } {
    return { wallMs: this.wall, envMs: this.env };
  }
}
