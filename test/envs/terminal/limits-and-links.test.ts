// Two defects of the terminal's shell (issue 12): a redirection past `maxFileSystemBytes` made just-bash
// throw out of `exec` (so `step` rejected), and a write through a symlink stored an entry under the
// link's path that `save()` could not read (`lstat` resolves the link), so snapshots threw.
import { describe, expect, it } from "vitest";
import { createRandom } from "../../../src/core/random.ts";
import {
  createSandboxShell,
  createTerminalEnvironment,
  TERMINAL_BASE_ENV,
} from "../../../src/envs/terminal/index.ts";
import { dir, file, HOME, limits, link } from "./saved-entries.ts";

const linked = [
  dir(HOME),
  dir(`${HOME}/d`),
  file(`${HOME}/a.txt`, "alpha\n"),
  file(`${HOME}/d/c.csv`, "id\n"),
  link(`${HOME}/link`, `${HOME}/d`),
  link(`${HOME}/flink`, `${HOME}/a.txt`),
];

/** What a later command can see of a shell: listings, reads through and around the links. */
const PROBES = [
  "ls -la . d link/",
  "find . | sort",
  "cat link/c.csv d/c.csv link/new.txt a.txt/x",
  "ls -la link/e",
  "stat -c '%n %s %a %F' link flink a.txt",
];

async function probe(shell: Awaited<ReturnType<typeof createSandboxShell>>): Promise<string[]> {
  const out: string[] = [];
  for (const cmd of PROBES) {
    const r = await shell.run(cmd, HOME, { ...TERMINAL_BASE_ENV }, createRandom("probe"));
    out.push(`${r.exitCode}\n${r.stdout}\n${r.stderr}`);
  }
  return out;
}

describe("terminal shell: writes through symlinks", () => {
  // Each of these left an entry `save()` could not read (or read from the wrong path) before the fix;
  // found by a search over cp/mv/ln/echo/touch/mkdir/rm/sed/tee/chmod × paths through the links.
  const commands = [
    "echo hi > link/new.txt",
    "echo hi > link/c.csv",
    "echo hi >> link/c.csv",
    "touch link/e/x",
    "mkdir -p link/e/x",
    "cp a.txt link/",
    "mv a.txt link/new.txt",
    "sed -i s/id/ID/ link/c.csv",
    "ln -s a.txt link/new.txt",
    "cp -r d flink",
    "mv a.txt a.txt/x",
    "chmod 600 link",
  ];
  for (const cmd of commands)
    it(`saves and restores exactly after \`${cmd}\``, async () => {
      const shell = await createSandboxShell(limits, linked);
      await shell.run(cmd, HOME, { ...TERMINAL_BASE_ENV }, createRandom("cmd"));
      const saved = await shell.save();
      expect(await shell.save({ reread: true })).toEqual(saved);
      const restored = await createSandboxShell(limits, saved, { exact: true });
      expect(await restored.save({ reread: true })).toEqual(saved);
      expect(await probe(restored)).toEqual(await probe(shell));
    });

  it("keeps a snapshot of the terminal environment exact after such a write", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "find-and-copy", seed: 1 });
    for (const command of ["mkdir zz && ln -s zz link", "echo hi > link/new.txt", "echo a > f && mv f f/x"])
      await env.step({ type: "shell", command });
    const snap = await env.snapshot();
    const fingerprint = await env.fingerprint();
    const next = await env.step({ type: "shell", command: "ls -la . link/ zz; cat link/new.txt f/x" });
    await env.restore(JSON.parse(JSON.stringify(snap)));
    expect(await env.fingerprint()).toBe(fingerprint);
    expect(
      (await env.step({ type: "shell", command: "ls -la . link/ zz; cat link/new.txt f/x" })).observation,
    ).toEqual(next.observation);
    await env.close();
  });
});

describe("terminal shell: the file-system limit", () => {
  it("reports a command stopped by just-bash's wall-time deadline as a budget error", async () => {
    // just-bash words it "execution exceeded execution deadline (N ms)"; that wording was not
    // recognised, so a loop stopped by the deadline (on a loaded machine) came back without an error.
    const env = createTerminalEnvironment({ limits: { maxExecutionMs: 1 } });
    await env.reset({ taskId: "make-layout", seed: 1 });
    const r = await env.step({ type: "shell", command: "while true; do :; done" });
    expect(r.observation.data?.exitCode).toBe(124);
    expect(r.observation.error?.code).toBe("command_budget_exceeded");
    await env.close();
  });

  it("fails a redirection past maxFileSystemBytes with an error result, never a rejected step", async () => {
    const env = createTerminalEnvironment({ limits: { maxFileSystemBytes: 64 * 1024 } });
    await env.reset({ taskId: "find-and-copy", seed: 1 });
    const before = (await env.stateView()).tree.length;
    // 4 × 18,893 bytes through a redirection: just-bash throws out of `exec` for it.
    const command = "seq 1 4000 > s.txt && cat s.txt s.txt s.txt s.txt > big.txt";
    const r = await env.step({ type: "shell", command });
    expect(r.observation.data?.exitCode).toBe(1);
    expect(r.observation.data?.stderr).toContain("limits.maxFileSystemBytes");
    expect(r.observation.error?.code).toBe("filesystem_limit_exceeded");
    expect(r.info.stoppedBy).toBe("filesystem");
    expect([r.terminated, r.truncated]).toEqual([false, false]);
    // The state is what just-bash left (the redirection had created the file empty), and usable.
    const tree = (await env.stateView()).tree;
    expect(tree.length).toBe(before + 2);
    expect(tree.find((n) => n.path === `${HOME}/s.txt`)?.size).toBe(18_893);
    expect(tree.find((n) => n.path === `${HOME}/big.txt`)?.size).toBe(0);
    const next = await env.step({ type: "shell", command: "echo ok > small.txt; cat small.txt; echo $?" });
    expect(next.observation.data?.stdout).toBe("ok\n0\n");
    expect(next.observation.error).toBeUndefined();
    const snap = await env.snapshot();
    await env.restore(snap);
    expect((await env.stateView()).tree.length).toBe(before + 3);
    await env.close();
  });

  it("gives the same outcome with and without the fast path", async () => {
    const small = { ...limits, maxFileSystemBytes: 8 * 1024 };
    const results: string[] = [];
    for (const fastPath of [true, false]) {
      const shell = await createSandboxShell(small, [dir(HOME)], { fastPath });
      const env = { ...TERMINAL_BASE_ENV };
      const outs = [];
      for (const cmd of ["seq 1 4000 > a.txt", `echo ${"x".repeat(900)} > b.txt`, "echo ok >> b.txt"]) {
        const { fast: _f, ...o } = await shell.run(cmd, HOME, env, createRandom("limit"));
        outs.push(o);
      }
      results.push(JSON.stringify([outs, await shell.save()]));
    }
    expect(results[0]).toBe(results[1]);
  });
});
