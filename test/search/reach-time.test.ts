import { describe, expect, it } from "vitest";
import { ReachTime } from "../../src/search/reach-time.ts";

describe("ReachTime: the search's time reaching children's states", () => {
  it("counts overlapping reaches once in wall time and each in environment time", () => {
    const t = new ReachTime();
    const a = t.begin(0);
    const b = t.begin(10);
    a(30);
    b(50);
    const c = t.begin(100); // after a gap: a new interval
    c(120);
    c(500); // ending twice is a no-op
    expect(t.figures()).toEqual({ wallMs: 70, envMs: 30 + 40 + 20 });
  });

  it("a reach nested in another adds nothing to wall time", () => {
    const t = new ReachTime();
    const outer = t.begin(0);
    t.begin(5)(15);
    outer(40);
    expect(t.figures()).toEqual({ wallMs: 40, envMs: 50 });
  });
});
