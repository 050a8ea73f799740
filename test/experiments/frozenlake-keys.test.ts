import { describe, expect, it } from "vitest";
import { parseMap } from "../../src/envs/frozenlake/index.ts";
import { frozenLakeLocalKey } from "../../src/experiments/index.ts";

describe("FrozenLake local key", () => {
  it("names the four neighbouring tiles and the goal direction, the same on different maps", () => {
    const a = parseMap("a", ["SFH", "FHF", "FFG"]);
    const b = parseMap("b", ["FFFF", "SFHF", "FHFF", "FFFG"]);
    expect(frozenLakeLocalKey(a, { row: 0, col: 0 })).toBe("frozenlake-local:#FF#:goal(1,1)");
    expect(frozenLakeLocalKey(a, { row: 0, col: 1 })).toBe("frozenlake-local:SHH#:goal(1,1)");
    expect(frozenLakeLocalKey(a, { row: 1, col: 2 })).toBe("frozenlake-local:HG#H:goal(1,0)");
    expect(frozenLakeLocalKey(b, { row: 1, col: 1 })).toBe("frozenlake-local:SHHF:goal(1,1)");
  });
});
