import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { codeVersion } from "../../src/runner/code-version.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] },
  ).trim();
}

/** A git project with one commit, holding a package folder at node_modules/rehearsal. */
function userProject(): { project: string; pkg: string; sha: string } {
  const project = mkdtempSync(join(tmpdir(), "rehearsal-code-version-"));
  dirs.push(project);
  git(project, "init", "-q");
  writeFileSync(join(project, "README"), "user project\n");
  git(project, "add", "README");
  git(project, "commit", "-q", "-m", "user commit");
  const pkg = join(project, "node_modules", "rehearsal");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "rehearsal", version: "9.8.7" }));
  return { project, pkg, sha: git(project, "rev-parse", "--short", "HEAD") };
}

/** A user project whose package folder is also a git checkout of its own, with one commit. */
function ownCheckout(): { pkg: string; own: string } {
  const { pkg } = userProject();
  git(pkg, "init", "-q");
  git(pkg, "add", "package.json");
  git(pkg, "commit", "-q", "-m", "package commit");
  return { pkg, own: git(pkg, "rev-parse", "--short", "HEAD") };
}

describe("codeVersion", () => {
  it("reports only the package version when installed inside another git project", () => {
    const { pkg, sha } = userProject();
    expect(sha).not.toBe("");
    expect(codeVersion(pkg)).toBe("rehearsal@9.8.7");
  });

  it("adds the package's own commit when its root is a git checkout", () => {
    const { pkg, own } = ownCheckout();
    expect(codeVersion(pkg)).toBe(`rehearsal@9.8.7+${own}`);
  });

  it("falls back to the version when its own .git has no commit yet", () => {
    const { pkg } = userProject();
    git(pkg, "init", "-q");
    expect(codeVersion(pkg)).toBe("rehearsal@9.8.7");
  });
});

describe("codeVersion, read once per process", () => {
  it("keeps the commit the process first read: a commit made later is not the code it runs", () => {
    const { pkg, own: first } = ownCheckout();
    expect(codeVersion(pkg)).toBe(`rehearsal@9.8.7+${first}`);
    writeFileSync(join(pkg, "later.txt"), "later\n");
    git(pkg, "add", "later.txt");
    git(pkg, "commit", "-q", "-m", "later commit");
    expect(git(pkg, "rev-parse", "--short", "HEAD")).not.toBe(first);
    expect(codeVersion(pkg)).toBe(`rehearsal@9.8.7+${first}`);
  });
});
