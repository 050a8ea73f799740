import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { compiledBin } from "./compiled-bin.ts";
import { runMain } from "./run-cli.ts";

describe("the compiled bin the process-level tests start", () => {
  it("is the real bin in an installed package's layout: compiled dist/ with its assets, no src/, no tsx", async () => {
    const bin = await compiledBin();
    const pkg = join(dirname(bin), "..");
    expect(readFileSync(bin, "utf8")).toBe(
      readFileSync(join(import.meta.dirname, "../../bin/rehearsal.js"), "utf8"),
    );
    expect(existsSync(join(pkg, "src"))).toBe(false); // so the bin takes its installed branch
    expect(existsSync(join(pkg, "dist", "cli", "main.js"))).toBe(true);
    expect(existsSync(join(pkg, "dist", "envs", "web", "page", "agent.js"))).toBe(true);
    expect(existsSync(join(pkg, "dist", "envs", "web-tasks", "tasks", "click-button", "index.html"))).toBe(
      true,
    );
    expect(await compiledBin()).toBe(bin); // built once
    // The same output as the sources run in this process; an unknown command exits 2 with the error.
    const help = spawnSync(process.execPath, [bin, "--help"], {
      encoding: "utf8",
      env: { ...process.env, CI: "1" },
    });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toBe((await runMain(["--help"])).stdout);
    const bad = spawnSync(process.execPath, [bin, "no-such-command"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("no-such-command");
    expect(bad.stderr).not.toContain("tsx");
  }, 120_000);
});
