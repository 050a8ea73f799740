import { Bash } from "just-bash";
import { expect, it } from "vitest";
import { TERMINAL_BASE_ENV } from "../../../src/envs/terminal/environment.ts";
import { fastPathStateOf, runFastPath } from "../../../src/envs/terminal/fast-path.ts";
import { FixedClockFs } from "../../../src/envs/terminal/fixed-clock-fs.ts";

// The fast path's promise to the sandbox: a line it does not answer returns undefined before anything
// changed (just-bash then runs the line on the same file system).
it("a piped `find -delete` is declined before it deletes anything", async () => {
  const fs = new FixedClockFs();
  await fs.mkdir("/home/user/d", { recursive: true });
  await fs.writeFile("/home/user/d/a.bak", "old\n");
  const state = fastPathStateOf(new Bash({ fs, cwd: "/home/user" }));
  expect(state).toBeDefined();
  if (!state) return;
  const env = { ...TERMINAL_BASE_ENV, PWD: "/home/user" };
  const piped = await runFastPath(fs, state, "find d -name '*.bak' -delete | grep x", "/home/user", env);
  expect(piped).toBeUndefined();
  expect(await fs.exists("/home/user/d/a.bak")).toBe(true);
  // Alone, the same `find` is answered and deletes.
  const alone = await runFastPath(fs, state, "find d -name '*.bak' -delete", "/home/user", env);
  expect(alone?.exitCode).toBe(0);
  expect(await fs.exists("/home/user/d/a.bak")).toBe(false);
});
