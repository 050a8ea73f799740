import { describe, expect, it } from "vitest";
import { createTerminalEnvironment, type TerminalEnvironment } from "../../../src/envs/terminal/index.ts";

const AWK_RAND = `awk 'BEGIN { print rand(), rand() }'`;

async function stdoutOf(env: TerminalEnvironment, command: string): Promise<string> {
  const r = await env.step({ type: "shell", command });
  return String(r.observation.data?.stdout ?? "");
}

async function awkDraws(seed: number): Promise<string> {
  const env = createTerminalEnvironment();
  await env.reset({ taskId: "make-layout", seed });
  const out = await stdoutOf(env, AWK_RAND);
  await env.close();
  return out;
}

describe("terminal determinism and caching", () => {
  it("awk's rand() without srand draws from the episode's seeded stream", async () => {
    const a = await awkDraws(1);
    expect(a).toMatch(/^0\.\d+ 0\.\d+\n$/);
    expect(await awkDraws(1)).toBe(a);
    expect(await awkDraws(2)).not.toBe(a);
    expect(Math.random()).not.toBe(Math.random());
  });

  it("interleaved environments keep their own awk streams", async () => {
    const one = createTerminalEnvironment();
    const two = createTerminalEnvironment();
    await one.reset({ taskId: "make-layout", seed: 1 });
    await two.reset({ taskId: "make-layout", seed: 1 });
    const [a, b] = await Promise.all([stdoutOf(one, AWK_RAND), stdoutOf(two, AWK_RAND)]);
    expect(a).toBe(b);
    expect(a).toBe(await awkDraws(1));
    await one.close();
    await two.close();
  });

  it("restores the awk stream exactly from a snapshot", async () => {
    const env = createTerminalEnvironment();
    await env.reset({ taskId: "make-layout", seed: 3 });
    await stdoutOf(env, AWK_RAND);
    const snap = await env.snapshot();
    const next = await stdoutOf(env, AWK_RAND);
    await env.restore(snap);
    expect(await stdoutOf(env, AWK_RAND)).toBe(next);
    await env.close();
  });

  it("the state view and state key follow every change of the file system, not a stale copy", async () => {
    const env = createTerminalEnvironment();
    const first = await env.reset({ taskId: "make-layout", seed: 1 });
    const read = await env.step({ type: "shell", command: "ls" });
    expect(read.observation.stateKey).toBe(first.stateKey);
    const wrote = await env.step({ type: "shell", command: "echo hi > new.txt" });
    expect(wrote.observation.stateKey).not.toBe(first.stateKey);
    const view = await env.stateView();
    expect(view.tree.some((n) => n.path.endsWith("/new.txt") && n.size === 3)).toBe(true);
    const snap = await env.snapshot();
    await env.step({ type: "shell", command: "echo more >> new.txt; chmod 600 new.txt" });
    const changed = await env.snapshot();
    const file = (s: typeof snap) =>
      (s.state as { entries: Array<{ path: string; text?: string; mode: number }> }).entries.find((e) =>
        e.path.endsWith("/new.txt"),
      );
    expect(file(snap)?.text).toBe("hi\n");
    expect(file(changed)?.text).toBe("hi\nmore\n");
    expect(file(changed)?.mode).not.toBe(file(snap)?.mode);
    const back = await env.restore(snap);
    expect(back.stateKey).toBe(wrote.observation.stateKey);
    await env.close();
  });

  it("runs the same with just-bash's defense-in-depth guard switched on", async () => {
    const env = createTerminalEnvironment({ limits: { defenseInDepth: true } });
    await env.reset({ taskId: "make-layout", seed: 1 });
    expect(await stdoutOf(env, "echo guarded")).toBe("guarded\n");
    await env.close();
  });
});
