import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  changedParts,
  createWebEnvironment,
  FingerprintMemo,
  partDigests,
  ReplayMismatchError,
  type WebEnvironment,
} from "../../../src/envs/web/index.ts";
import { shareBrowserAcrossFile } from "../../web-browser.ts";

/** Pages that differ between two loads in one fingerprint part only (real crypto randomness). */
const page = (title: string, body: string, script: string) => `<!DOCTYPE html>
<html><head><title>${title}</title><script src="/core/core.js"></script></head>
<body><div id="wrap"><div id="query">Look.</div><div id="area">${body}</div></div>
<script>
var token = crypto.getRandomValues(new Uint32Array(1))[0].toString(16);
function genProblem() { ${script} }
window.onload = function () { core.startEpisode(); };
</script></body></html>`;

const PAGES: Record<string, string> = {
  // Only what the verifier can read changes: the globals part.
  "random-global": page(
    "Global",
    "<button>Same</button>",
    "window.rehearsalVerifierState = function () { return { token: token }; };",
  ),
  // Visible text changes: the axtree and the DOM.
  "random-text": page(
    "Text",
    '<p id="t">x</p>',
    'document.getElementById("t").textContent = "Token " + token;',
  ),
  // A hidden attribute changes: the DOM only.
  "random-attr": page(
    "Attr",
    '<p id="t">same</p>',
    'document.getElementById("t").setAttribute("data-token", token);',
  ),
};

shareBrowserAcrossFile();

describe("a replay mismatch names the fingerprint parts that changed", () => {
  let dir: string;
  let env: WebEnvironment;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rh-mismatch-"));
    for (const [name, html] of Object.entries(PAGES)) writeFileSync(join(dir, `${name}.html`), html);
    env = await createWebEnvironment({ tasksDir: dir, observation: { screenshot: false } });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const expected: Record<string, string[]> = {
    "random-global": ["globals"],
    "random-text": ["axtree", "dom"],
    "random-attr": ["dom"],
  };
  for (const [taskId, parts] of Object.entries(expected)) {
    it(`${taskId}: ${parts.join(", ")}`, async () => {
      await env.reset({ taskId, seed: 0 });
      const recorded = await env.fingerprint();
      const err = await env.branchFrom([], { expectedFingerprint: recorded }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ReplayMismatchError);
      expect((err as ReplayMismatchError).changedParts).toEqual(parts);
      expect((err as Error).message).toContain(`(changed: ${parts.join(", ")})`);
      const reported = await env.branchFrom([], { expectedFingerprint: recorded, onMismatch: "report" });
      expect(reported.mismatch?.changedParts).toEqual(parts);
    });
  }

  it("without the recorded parts the mismatch is still reported, with no part named", async () => {
    await env.reset({ taskId: "random-text", seed: 0 });
    const recorded = await env.fingerprint();
    const other = await createWebEnvironment({ tasksDir: dir, observation: { screenshot: false } });
    try {
      const r = await other.branchFrom([], {
        taskId: "random-text",
        seed: 0,
        expectedFingerprint: recorded,
        onMismatch: "report",
      });
      expect(r.mismatch?.code).toBe("env.replay_mismatch");
      expect(r.mismatch?.changedParts).toBeNull();
      expect(r.mismatch?.message).not.toContain("changed:");
    } finally {
      await other.close();
    }
  });

  it("part digests: equal parts, a changed part, a part on one side only; the memo is bounded", () => {
    const a = partDigests({ url: "/a", dom: "<p>", globals: { done: false } });
    const b = partDigests({ url: "/a", dom: "<p>", globals: { done: true }, noise: {} });
    expect(changedParts(a, a)).toEqual([]);
    expect(changedParts(a, b)).toEqual(["globals", "noise"]);
    const memo = new FingerprintMemo(2);
    const p1 = memo.remember({ url: "/1" });
    memo.remember({ url: "/2" });
    memo.remember({ url: "/3" });
    expect(memo.get(p1)).toBeUndefined();
  });
});
