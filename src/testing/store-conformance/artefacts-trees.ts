import { beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/index.ts";
import { type RunStore, STORE_ERROR_CODES } from "../../store/index.ts";
import { expectStoreError, image, newRun, newTrajectory, node, step, tree } from "./fixtures.ts";

/** Store conformance: artefacts and trees. `store()` is the fresh store of the running test. */
export function describeArtefactsAndTrees(store: () => RunStore): void {
  describe("artefacts", () => {
    it("stores bytes by content hash, once, and returns fresh copies", () => {
      const bytes = new Uint8Array([1, 2, 3, 4, 5]);
      const ref = store().putArtefact(bytes, "image/png");
      expect(ref).toEqual({ sha256: sha256Hex(bytes), mime: "image/png", size: 5 });
      expect(store().putArtefact(new Uint8Array([1, 2, 3, 4, 5]), "image/png")).toEqual(ref);
      const other = store().putArtefact(new Uint8Array([9]), "application/octet-stream");
      expect(other.sha256).not.toBe(ref.sha256);
      bytes[0] = 99;
      const read = store().getArtefact(ref.sha256);
      expect(read).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
      if (read) read[1] = 42;
      expect(store().getArtefact(ref.sha256)).toEqual(new Uint8Array([1, 2, 3, 4, 5]));
      expect(store().getArtefact(other.sha256)).toEqual(new Uint8Array([9]));
      expect(store().getArtefact("0".repeat(64))).toBeUndefined();
      expect(store().getArtefact("../../etc/passwd")).toBeUndefined();
    });

    it("moves screenshot bytes of steps and final observations to artefacts", () => {
      store().createRun(newRun("r1"));
      store().startTrajectory(newTrajectory("t1"));
      const a = image([1, 2, 3]);
      const b = image([4, 5, 6, 7]);
      const first = step(0, { observation: { text: "o0", screenshot: a } });
      store().appendStep("t1", first);
      store().appendStep("t1", step(1, { observation: { text: "o1", screenshot: image([1, 2, 3]) } }));
      store().finishTrajectory("t1", {
        status: "complete",
        endedAtMs: 3,
        finalObservation: { text: "end", screenshot: b },
      });
      expect(first.observation.screenshot?.bytes).toEqual(new Uint8Array([1, 2, 3]));
      const t = store().getTrajectory("t1");
      const { bytes: _a, ...refA } = a;
      const { bytes: _b, ...refB } = b;
      expect(t?.steps[0]?.observation.screenshot).toEqual(refA);
      expect(t?.steps[1]?.observation.screenshot).toEqual(refA);
      expect(t?.finalObservation?.screenshot).toEqual(refB);
      expect(store().getArtefact(a.sha256)).toEqual(new Uint8Array([1, 2, 3]));
      expect(store().getArtefact(b.sha256)).toEqual(new Uint8Array([4, 5, 6, 7]));
      expect(store().putArtefact(new Uint8Array([1, 2, 3]), "image/png")).toEqual({
        sha256: a.sha256,
        mime: "image/png",
        size: 3,
      });
    });

    it("rejects a screenshot whose sha256 is not the hash of its bytes", () => {
      store().createRun(newRun("r1"));
      store().startTrajectory(newTrajectory("t1"));
      const bad = { ...image([1]), sha256: "a".repeat(64) };
      expectStoreError(
        () => store().appendStep("t1", step(0, { observation: { text: "x", screenshot: bad } })),
        STORE_ERROR_CODES.screenshotHashMismatch,
      );
      expect(store().getTrajectory("t1")?.steps).toEqual([]);
    });
  });

  describe("trees", () => {
    beforeEach(() => {
      store().createRun(newRun("r1"));
    });

    it("upserts trees and lists them per run in first-insertion order", () => {
      store().createRun(newRun("r2"));
      store().putTree(tree("tree-b"));
      store().putTree(tree("tree-a"));
      store().putTree({ ...tree("tree-c"), runId: "r2" });
      store().putTree({ ...tree("tree-b"), status: "complete", data: { leaves: 4 } });
      expect(store().getTree("tree-b")).toEqual({
        ...tree("tree-b"),
        status: "complete",
        data: { leaves: 4 },
      });
      expect(
        store()
          .listTrees("r1")
          .map((t) => t.id),
      ).toEqual(["tree-b", "tree-a"]);
      expect(
        store()
          .listTrees("r2")
          .map((t) => t.id),
      ).toEqual(["tree-c"]);
      expect(store().getTree("nope")).toBeUndefined();
      expectStoreError(() => store().putTree({ ...tree("x"), runId: "nope" }), STORE_ERROR_CODES.unknownRun);
    });

    it("upserts nodes, lists them by depth then insertion, and filters by status and parent", () => {
      store().putTree(tree("T"));
      store().putTree(tree("U"));
      store().putNodes([node("T", "root", null, 0), node("T", "c2", "root", 1), node("T", "c1", "root", 1)]);
      store().putNodes([node("T", "g1", "c1", 2, "leaf"), node("U", "root", null, 0, "pending")]);
      store().putNodes([{ ...node("T", "c2", "root", 1), status: "pruned", data: { reason: "dup" } }]);
      const all = store().listNodes("T");
      expect(all.map((n) => n.id)).toEqual(["root", "c2", "c1", "g1"]);
      expect(all[1]).toEqual({ ...node("T", "c2", "root", 1), status: "pruned", data: { reason: "dup" } });
      expect(
        store()
          .listNodes("T", { status: "alive" })
          .map((n) => n.id),
      ).toEqual(["root", "c1"]);
      expect(
        store()
          .listNodes("T", { parentId: "root" })
          .map((n) => n.id),
      ).toEqual(["c2", "c1"]);
      expect(
        store()
          .listNodes("T", { parentId: null })
          .map((n) => n.id),
      ).toEqual(["root"]);
      expect(
        store()
          .listNodes("T", { parentId: "root", status: "pruned" })
          .map((n) => n.id),
      ).toEqual(["c2"]);
      expect(store().listNodes("U")).toEqual([node("U", "root", null, 0, "pending")]);
      expect(store().listNodes("none")).toEqual([]);
    });

    it("rejects a batch with a node of an unknown tree as a whole", () => {
      store().putTree(tree("T"));
      expectStoreError(
        () => store().putNodes([node("T", "ok", null, 0), node("nope", "bad", null, 0)]),
        STORE_ERROR_CODES.unknownTree,
      );
      expectStoreError(
        () => store().putNodes([{ ...node("T", "neg", null, 0), depth: -1 }]),
        STORE_ERROR_CODES.invalidArgument,
      );
      expect(store().listNodes("T")).toEqual([]);
    });
  });
}
