import { type Command, InvalidArgumentError } from "commander";
import { EnvironmentError } from "../../core/errors.ts";
import type { CliContext } from "../context.ts";

interface UiFlags {
  store: string;
  port: string;
  worldbook: string[];
  skl: string[];
}

function portOption(value: string): string {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got '${value}'`);
  return value;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `rehearsal ui --store DIR`: the read-only dashboard on 127.0.0.1 until Ctrl-C (see docs/dashboard.md). */
export function registerUi(program: Command, ctx: CliContext): void {
  program
    .command("ui")
    .description(
      "browse a run store in the browser: runs, trajectories, search trees, evaluations, SKL, worldbooks",
    )
    .option("--store <dir>", "run store directory (opened read-only)", ".rehearsal")
    .option("--port <port>", "port on 127.0.0.1 (0: any free port)", portOption, "8080")
    .option(
      "--worldbook <dir>",
      "a worldbook directory to show (repeatable; those under --store are found)",
      collect,
      [],
    )
    .option(
      "--skl <dir>",
      "an SKL --out-dir whose reports give the learning curves (repeatable)",
      collect,
      [],
    )
    .action(async (flags: UiFlags) => {
      const o = ctx.out();
      const { startUiServer } = await import("../../ui/ui-server.ts");
      const port = Number(flags.port);
      const server = await startUiServer({
        storeDir: flags.store,
        port,
        worldbooks: flags.worldbook,
        sklDirs: flags.skl,
      }).catch((error: unknown) => {
        if ((error as { code?: string }).code === "EADDRINUSE")
          throw new EnvironmentError(
            "ui.port_in_use",
            `rehearsal ui: port ${port} on 127.0.0.1 is already in use. Fix: pass another --port (or --port 0 for any free one).`,
            { cause: error },
          );
        throw error;
      });
      o.result({ url: server.url, port: server.port, store: server.context.storeDir });
      o.line(`dashboard of ${server.context.storeDir} at ${server.url} (read-only); Ctrl-C stops`);
      const signal = ctx.signals().signal;
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await server.close();
      o.warn("stopped the dashboard");
    });
}
