// The terminal step keeps work between steps (saved entries of unchanged files, file digests, the
// state key while tree and cwd are unchanged). Each step's state key and state view must equal those
// of a fresh environment restored from the step's snapshot, which has none of that kept work.
import { describe, expect, it } from "vitest";
import { createTerminalEnvironment, TERMINAL_TASK_SPECS } from "../../../src/envs/terminal/index.ts";

const COMMANDS = [
  "mkdir -p w/d && echo abc > w/a.txt",
  "cat w/a.txt",
  "sed -i 's/a/b/' w/a.txt", // same length, new content
  "chmod 600 w/a.txt", // mode only
  "echo bbc > w/a.txt", // same content written again
  "cp w/a.txt w/d/b.txt && printf '\\377\\376' > w/bin.dat", // a copy and a non-UTF-8 file
  "cd w",
  "pwd",
  "mv d e && rm a.txt",
  "awk 'BEGIN { srand(1); print int(rand() * 1000) }'",
  "ln -s e/b.txt link && ls",
];

describe("terminal step caches", () => {
  it("state keys and views equal a fresh restore's after every kind of change", async () => {
    const spec = TERMINAL_TASK_SPECS[0];
    if (!spec) throw new Error("no terminal task");
    const env = createTerminalEnvironment({ horizon: 100 });
    await env.reset({ taskId: spec.id, seed: 3 });
    const keys = new Set<string>();
    for (const command of COMMANDS) {
      const r = await env.step({ type: "shell", command });
      expect(r.observation.error, command).toBeUndefined();
      const fresh = createTerminalEnvironment({ horizon: 100 });
      const restored = await fresh.restore(await env.snapshot());
      expect(restored.stateKey, command).toBe(r.observation.stateKey);
      expect(await fresh.stateView(), command).toEqual(await env.stateView());
      await fresh.close();
      keys.add(r.observation.stateKey ?? "");
    }
    // New keys: mkdir+write, sed (same length), cp+printf, cd, mv+rm, ln. The key holds no modes,
    // so chmod keeps it; so do reads, awk and rewriting the same content.
    expect(keys.size).toBe(6);
    await env.close();
  });
});
