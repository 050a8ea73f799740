import { type Command, InvalidArgumentError } from "commander";
import { type CliContext, createCliRuntime, openCliStore } from "../context.ts";
import { positiveIntOption } from "../options.ts";
import { addConfigOptions, type ConfigFlags, configFromFlags } from "../run-options.ts";

interface ServeFlags extends Omit<ConfigFlags, "store"> {
  host?: string;
  port?: string;
  token?: string;
  maxSessions?: number;
  idleTimeout?: number;
  maxMessageBytes?: number;
  store?: string;
}

function portOption(value: string): string {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got '${value}'`);
  return value;
}

export function registerServe(program: Command, ctx: CliContext): void {
  addConfigOptions(
    program
      .command("serve")
      .description("serve an environment over HTTP and WebSocket (OpenEnv-compatible; see docs/serve.md)"),
    ["policy", "tasks", "store"],
  )
    .option("--host <host>", "address to bind (anything but loopback needs --token)", "127.0.0.1")
    .option("--port <port>", "port to listen on (0: any free port)", portOption, "8000")
    .option("--token <token>", "bearer token every request must carry (default: REHEARSAL_SERVE_TOKEN)")
    .option("--max-sessions <n>", "concurrent sessions, each with its own environment", positiveIntOption, 16)
    .option(
      "--idle-timeout <s>",
      "seconds without a message before a session is reclaimed",
      positiveIntOption,
      300,
    )
    .option(
      "--max-message-bytes <n>",
      "the largest message or request body accepted",
      positiveIntOption,
      1_048_576,
    )
    .option("--store <dir>", "record every served episode in this run store (a run of kind serve)")
    .action(async (flags: ServeFlags) => {
      const o = ctx.out();
      const { store: storeDir, host = "127.0.0.1", port = "8000", token: tokenFlag, ...rest } = flags;
      const { maxSessions = 16, idleTimeout = 300, maxMessageBytes = 1_048_576, ...configFlags } = rest;
      const config = await configFromFlags(configFlags, {}, { env: "frozenlake" });
      const runtime = await createCliRuntime(config.seed);
      const [{ createEnvironmentFromConfig }, serve, { codeVersion, packageVersion }] = await Promise.all([
        import("../../runner/environments.ts"),
        import("../../serve/index.ts"),
        import("../../runner/code-version.ts"),
      ]);
      const token = tokenFlag ?? process.env.REHEARSAL_SERVE_TOKEN;
      serve.checkBindPolicy(host, token);
      const createEnvironment = () => createEnvironmentFromConfig(config, runtime);
      // A probe environment names the family and suite (environments start lazily: no browser yet).
      const probe = await createEnvironment();
      const { family, suite } = probe;
      await probe.close();
      const store = storeDir ? await openCliStore(storeDir) : undefined;
      try {
        const recorder = store
          ? serve.createStoreRecorder({
              store,
              runtime,
              tasks: suite.list(),
              config: { ...config, serve: { host, maxSessions, idleTimeout, maxMessageBytes } },
              codeVersion: codeVersion(),
            })
          : undefined;
        const server = await serve.startServeServer({
          createEnvironment,
          suite,
          family,
          runtime,
          ...(recorder ? { recorder } : {}),
          version: packageVersion(),
          host,
          port: Number(port),
          ...(token ? { token } : {}),
          maxSessions,
          idleTimeoutMs: idleTimeout * 1000,
          maxMessageBytes,
        });
        o.result({
          url: server.url,
          port: server.port,
          env: family,
          suite: suite.name,
          runId: server.runId ?? null,
        });
        o.line(
          `serving ${family} (suite ${suite.name}) at ${server.url} (WebSocket ${server.url.replace(/^http/, "ws")}/ws)${server.runId ? `, recording run ${server.runId}` : ""}; Ctrl-C stops`,
        );
        const signal = ctx.signals().signal;
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener("abort", () => resolve(), { once: true });
        });
        await server.close();
        o.warn(`stopped serving${server.runId ? `; run ${server.runId} recorded` : ""}`);
      } finally {
        store?.close();
      }
    });
}
