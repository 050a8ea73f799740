import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  formatIssues,
  type JsonFileErrors,
  parseJsonText,
  readJsonFile,
  UserError,
} from "../../src/core/index.ts";

const dir = mkdtempSync(join(tmpdir(), "rehearsal-read-json-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Schema = z.object({ n: z.number(), tags: z.array(z.string()) }).strict();

/** Errors that say which step failed, so a test can tell them apart. */
const errors: JsonFileErrors = {
  unreadable: (e) => new UserError("t.unreadable", `unreadable: ${e.message}`),
  syntax: (e) => new UserError("t.syntax", `syntax: ${e.message}`),
  invalid: (error) => new UserError("t.invalid", `invalid: ${formatIssues(error.issues)}`),
};

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as UserError).code;
  }
  return "no error";
};

describe("readJsonFile", () => {
  it("returns the validated value of a good file (with the schema's output type)", () => {
    const path = file("good.json", JSON.stringify({ n: 3, tags: ["a"] }));
    expect(readJsonFile(path, Schema, errors)).toEqual({ n: 3, tags: ["a"] });
  });

  it("tells each step's failure with the caller's own error: unreadable, syntax, invalid", () => {
    expect(codeOf(() => readJsonFile(join(dir, "missing.json"), Schema, errors))).toBe("t.unreadable");
    expect(codeOf(() => readJsonFile(dir, Schema, errors))).toBe("t.unreadable"); // a folder
    expect(codeOf(() => readJsonFile(file("cut.json", '{"n": 3,'), Schema, errors))).toBe("t.syntax");
    expect(codeOf(() => readJsonFile(file("bad.json", '{"n": "3", "tags": []}'), Schema, errors))).toBe(
      "t.invalid",
    );
    expect(() => parseJsonText('{"n": 1, "tags": [2]}', Schema, errors)).toThrow(
      "invalid: tags.0: Invalid input: expected string, received number",
    );
  });
});

describe("formatIssues", () => {
  const issues = [
    { path: ["a", 0], message: "bad" },
    { path: [], message: "whole" },
  ];
  it("joins path: message pairs, naming the top as (root) unless told", () => {
    expect(formatIssues(issues)).toBe("a.0: bad; (root): whole");
    expect(formatIssues(issues, { top: "(file)" })).toBe("a.0: bad; (file): whole");
  });
  it("prefixes every path with root when given", () => {
    expect(formatIssues(issues, { root: "config" })).toBe("config.a.0: bad; config: whole");
  });
});
