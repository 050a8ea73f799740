import { isStdoutTarget, resolveOutputPath, withAtomicFile } from "./output-file.ts";

/** Where an export's text goes: standard output (streamed) or a file (written atomically). */
export interface ExportSink {
  /** The file written (symlinks resolved), or undefined for standard output. */
  readonly path: string | undefined;
  write(text: string): Promise<void>;
}

/**
 * Runs `produce` against the sink for `out`: standard output when `out` is absent, `-` or `/dev/stdout`
 * (the caller passes the stream: library code never touches process.stdout), else an atomic file that is
 * committed when `produce` resolves and removed when it throws.
 */
export async function writeExport<T>(
  out: string | undefined,
  operation: string,
  stdout: NodeJS.WritableStream,
  produce: (sink: ExportSink) => T | Promise<T>,
): Promise<{ result: T; path: string | undefined }> {
  if (isStdoutTarget(out)) {
    const sink: ExportSink = {
      path: undefined,
      async write(text) {
        if (!stdout.write(text)) await new Promise<void>((resolve) => stdout.once("drain", () => resolve()));
      },
    };
    return { result: await produce(sink), path: undefined };
  }
  const path = resolveOutputPath(out as string, operation);
  const result = await withAtomicFile(path, operation, (file) =>
    produce({
      path: file.path,
      async write(text) {
        file.write(text);
      },
    }),
  );
  return { result, path };
}
