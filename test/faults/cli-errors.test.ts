import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { json, runMain } from "../cli/run-cli.ts";

/** CLI honesty, the cases test/cli/cli-honesty.test.ts does not hold: every message names the flag. */
const dir = mkdtempSync(join(tmpdir(), "rehearsal-cli-errors-"));
const store = join(dir, "store");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type ErrorOut = { error: { code: string; category: string; message: string } };

async function userError(args: string[]): Promise<ErrorOut["error"]> {
  const r = await runMain(["--json", ...args]);
  expect(r.code, r.stdout + r.stderr).toBe(2);
  const { error } = json<ErrorOut>(r);
  expect(error.category).toBe("user");
  return error;
}

describe("--json errors are JSON on stdout in every case, with a code that names the problem", () => {
  it("no command (or a command group without its subcommand) is cli.missing_command, not '(outputHelp)'", async () => {
    for (const args of [[], ["export"], ["runs"]]) {
      const error = await userError(args);
      expect(error.code).toBe("cli.missing_command");
      expect(error.message).not.toContain("outputHelp");
    }
    const plain = await runMain(["export"]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
  });

  it("commander's codes are snake_case like every other code", async () => {
    expect((await userError(["run", "--no-such-flag"])).code).toBe("cli.unknown_option");
    expect((await userError(["bogus"])).code).toBe("cli.unknown_command");
    expect((await userError(["runs", "show"])).code).toBe("cli.missing_argument");
    expect((await userError(["run", "--episodes"])).code).toBe("cli.option_missing_argument");
  });
});

describe("a bad value is named by the flag it came from, not by a config field", () => {
  it.each([
    [["run", "--episodes", "0"], "--episodes", "options.episodes"],
    [["run", "--max-steps", "0"], "--max-steps", "options.maxSteps"],
    [["run", "--temperature", "9"], "--temperature", "options.temperature"],
    [["run", "--episodes", "2000000"], "--episodes", "options.episodes"],
    [["search", "--live-envs", "0"], "--live-envs", "search.maxLiveEnvs"],
    [["eval", "--temperature", "9"], "--temperature", "options.temperature"],
    [["eval", "--rollouts", "2000000"], "--rollouts", "episodes"],
  ])("%j names %s (not %s)", async (args, flag, wrong) => {
    const { message } = await userError([...args, "--env", "frozenlake", "--store", store]);
    expect(message).toContain(flag);
    expect(message).not.toContain(wrong);
  });

  it("a bad value from the config file is still named by its path in the file", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "env: frozenlake\nepisodes: 0\n");
    const { message } = await userError(["run", "--config", file, "--store", store]);
    expect(message).toContain(`${file}.episodes`);
  });
});
