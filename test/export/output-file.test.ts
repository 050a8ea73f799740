import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EnvironmentError, RehearsalError, UserError } from "../../src/core/index.ts";
import {
  isStdoutTarget,
  openAtomicFile,
  withAtomicFile,
  writeFailure,
  writeFileAtomic,
} from "../../src/export/index.ts";
import { filesBelow } from "./helpers.ts";

const root = mkdtempSync(join(tmpdir(), "rehearsal-outfile-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = join(root, `case-${++n}`);
  mkdirSync(dir);
  return dir;
};

function thrown(run: () => unknown): RehearsalError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(RehearsalError);
    return e as RehearsalError;
  }
  throw new Error("expected a throw");
}

describe("atomic export file", () => {
  it("replaces the target only at commit, keeps its mode, and leaves no temporary file", () => {
    const dir = fresh();
    const target = join(dir, "out.jsonl");
    writeFileSync(target, "old\n");
    chmodSync(target, 0o640);
    const file = openAtomicFile(target, "test export");
    file.write("new 1\n");
    file.write(new Uint8Array(Buffer.from("new 2\n")));
    expect(readFileSync(target, "utf8")).toBe("old\n");
    expect(filesBelow(dir)).toHaveLength(2); // the target and the temporary file beside it
    file.commit();
    expect(readFileSync(target, "utf8")).toBe("new 1\nnew 2\n");
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(filesBelow(dir)).toEqual(["out.jsonl"]);
  });

  it("a failure while producing removes the temporary file and keeps the old target", async () => {
    const dir = fresh();
    const target = join(dir, "out.jsonl");
    writeFileSync(target, "old\n");
    await expect(
      withAtomicFile(target, "test export", (file) => {
        file.write("half of it\n");
        throw new UserError("test.fail", "the export failed half-way");
      }),
    ).rejects.toThrow(/half-way/);
    expect(readFileSync(target, "utf8")).toBe("old\n");
    expect(filesBelow(dir)).toEqual(["out.jsonl"]);
  });

  it("writes through a symlink: the link stays, its target gets the content", () => {
    const dir = fresh();
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real", "data.jsonl"), "old\n");
    symlinkSync(join("real", "data.jsonl"), join(dir, "link.jsonl"));
    const written = writeFileAtomic(join(dir, "link.jsonl"), "test export", "new\n");
    expect(written).toBe(join(dir, "real", "data.jsonl"));
    expect(lstatSync(join(dir, "link.jsonl")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, "link.jsonl"))).toBe(join("real", "data.jsonl"));
    expect(readFileSync(join(dir, "real", "data.jsonl"), "utf8")).toBe("new\n");
    // A dangling link: its target is created.
    symlinkSync(join("real", "later.jsonl"), join(dir, "dangling.jsonl"));
    writeFileAtomic(join(dir, "dangling.jsonl"), "test export", "x\n");
    expect(readFileSync(join(dir, "real", "later.jsonl"), "utf8")).toBe("x\n");
  });

  it("refuses a directory with a UserError naming the path and a fix", () => {
    const dir = fresh();
    const e = thrown(() => writeFileAtomic(dir, "test export", "x"));
    expect(e).toBeInstanceOf(UserError);
    expect(e.code).toBe("export.out_is_directory");
    expect(e.message).toContain(dir);
    expect(e.message).toContain("Fix:");
    expect(filesBelow(dir)).toEqual([]);
  });

  it("refuses devices (/dev/full, /dev/null) by name instead of writing or crashing", () => {
    for (const device of ["/dev/full", "/dev/null"]) {
      const e = thrown(() => writeFileAtomic(device, "test export", "x"));
      expect(e).toBeInstanceOf(UserError);
      expect(e.code).toBe("export.out_device");
      expect(e.message).toContain(device);
      expect(e.message).toContain("character device");
    }
    // Through a symlink too.
    const dir = fresh();
    symlinkSync("/dev/full", join(dir, "full"));
    expect(thrown(() => writeFileAtomic(join(dir, "full"), "test export", "x")).code).toBe(
      "export.out_device",
    );
  });

  it("creates missing parent folders and refuses a path under a regular file", () => {
    const dir = fresh();
    writeFileAtomic(join(dir, "a", "b", "out.json"), "test export", "{}\n");
    expect(readFileSync(join(dir, "a", "b", "out.json"), "utf8")).toBe("{}\n");
    writeFileSync(join(dir, "plain"), "");
    const e = thrown(() => writeFileAtomic(join(dir, "plain", "out.json"), "test export", "{}"));
    expect(e).toBeInstanceOf(UserError);
    expect(e.code).toBe("export.out_not_writable");
  });

  it("maps a full or failing disk to an EnvironmentError that says the target is unchanged", () => {
    for (const code of ["ENOSPC", "EIO", "EFBIG"]) {
      const e = writeFailure(
        "export trajectories",
        "/data/out.jsonl",
        Object.assign(new Error(code), { code }),
      );
      expect(e).toBeInstanceOf(EnvironmentError);
      expect(e.code).toBe("export.write_failed");
      expect(e.message).toContain("/data/out.jsonl");
      expect(e.message).toContain("unchanged");
    }
  });

  it("treats no --out, '-' and /dev/stdout as standard output", () => {
    expect([undefined, "-", "/dev/stdout"].map(isStdoutTarget)).toEqual([true, true, true]);
    expect(isStdoutTarget("out.jsonl")).toBe(false);
  });
});
