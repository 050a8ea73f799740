import { describe, expect, it } from "vitest";
import { buildProgram, COMMAND_NAMES, registrarsFor } from "../../src/cli/main.ts";
import { runMain } from "./run-cli.ts";

/** The top-level command names a program built for `args` holds (the bin's argv: node, script, args). */
async function registered(args: string[]): Promise<string[]> {
  const argv = ["node", "rehearsal", ...args];
  const { program } = buildProgram({}, argv, await registrarsFor(argv));
  return program.commands.map((c) => c.name());
}

describe("lazy command registration", () => {
  it("registers every command, in help order, when no command is named", async () => {
    const all = await registered([]);
    expect(all).toEqual(COMMAND_NAMES);
    expect(all).toHaveLength(15);
    for (const args of [["--help"], ["--json"], ["help", "run"], ["nope"], ["--", "run"]]) {
      expect(await registered(args), args.join(" ")).toEqual(COMMAND_NAMES);
    }
  });

  it("registers only the named command, which is exactly the one that module adds", async () => {
    for (const name of COMMAND_NAMES) {
      expect(await registered([name, "--help"])).toEqual([name]);
      expect(await registered(["--json", name])).toEqual([name]);
    }
  });

  it("runs a named command and rejects an unknown one as before", async () => {
    const list = await runMain(["--json", "noise", "list"]);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).generators.length).toBeGreaterThanOrEqual(40);
    const unknown = await runMain(["--json", "nosie", "list"]);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error.code).toBe("cli.unknown_command");
  });
});
