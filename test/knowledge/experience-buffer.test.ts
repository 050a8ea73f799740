import { describe, expect, it } from "vitest";
import { ExperienceBuffer, KnowledgeEpisodeError } from "../../src/knowledge/index.ts";
import { episode, step } from "./helpers.ts";

describe("experience buffer", () => {
  it("holds every suffix and returns continuations most recent first, ties by id", () => {
    const b = new ExperienceBuffer();
    b.add(
      episode("e1", 0, [
        step("A", "right", "B"),
        step("B", "down", "C"),
        step("C", "down", "H", { terminal: true }),
      ]),
    );
    b.add(
      episode("e2", 0, [
        step("A", "down", "D"),
        step("D", "right", "C"),
        step("C", "right", "G", { terminal: true, reward: 1 }),
      ]),
    );
    expect(b.transitionCount).toBe(6);
    const fromC = b.continuations("C", { n: 5, h: 15 });
    expect(fromC.map((c) => c.id)).toEqual(["e2#2+1", "e1#2+1"]);
    expect(fromC[0]).toMatchObject({ root: "C", episodeId: "e2", end: "terminal" });
    const fromA = b.continuations("A", { n: 1, h: 2 });
    expect(fromA).toHaveLength(1);
    expect(fromA[0]?.transitions.map((t) => t.state)).toEqual(["A", "D"]);
    expect(fromA[0]?.end).toBe("horizon");
    expect(b.continuations("A", { n: 3, h: 15 }).map((c) => c.transitions.length)).toEqual([3, 3]);
    expect(b.continuations("Z", { n: 3, h: 15 })).toEqual([]);
  });

  it("splits a suffix that revisits its root", () => {
    const b = new ExperienceBuffer();
    b.add(
      episode("e", 0, [
        step("A", "left", "A"),
        step("A", "right", "B"),
        step("B", "left", "A"),
        step("A", "down", "C"),
        step("C", "down", "C", { truncated: true }),
      ]),
    );
    const fromA = b.continuations("A", { n: 10, h: 15 });
    expect(fromA.map((c) => [c.id, c.end])).toEqual([
      ["e#0+1", "revisit"],
      ["e#1+2", "revisit"],
      ["e#3+2", "truncated"],
    ]);
    const fromB = b.continuations("B", { n: 10, h: 15 });
    expect(fromB[0]?.transitions.map((t) => t.actionLabel)).toEqual(["left", "down", "down"]);
  });

  it("scopes queries to the last epoch and ranks newer epochs first", () => {
    const b = new ExperienceBuffer();
    b.add(episode("late", 2, [step("A", "up", "B")]));
    b.add(episode("early", 1, [step("A", "down", "B")]));
    expect(b.continuations("A", { n: 5, h: 1 }).map((c) => c.episodeId)).toEqual(["late", "early"]);
    b.add(episode("last", 3, [step("A", "left", "B")]));
    expect(b.lastEpoch).toBe(3);
    expect(b.continuations("A", { n: 5, h: 1, scope: "last-epoch" }).map((c) => c.episodeId)).toEqual([
      "last",
    ]);
    expect(b.continuations("A", { n: 5, h: 1, scope: "all" }).map((c) => c.episodeId)).toEqual([
      "last",
      "late",
      "early",
    ]);
    expect(b.continuations("A", { n: 5, h: 1 })[0]?.end).toBe("episode-end");
  });

  it("rejects broken episodes and duplicate ids", () => {
    const b = new ExperienceBuffer();
    expect(() => b.add(episode("x", 0, [step("A", "up", "B"), step("C", "up", "D")]))).toThrow(
      KnowledgeEpisodeError,
    );
    b.add(episode("y", 0, [step("A", "up", "B")]));
    expect(() => b.add(episode("y", 0, [step("A", "up", "B")]))).toThrow(KnowledgeEpisodeError);
    expect(() => b.continuations("A", { n: 0, h: 1 })).toThrow(/invalid/);
  });
});
