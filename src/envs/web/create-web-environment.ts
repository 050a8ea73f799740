import { type Logger, silentLogger, UserError } from "../../core/index.ts";
import { BrowserPool } from "./browser-pool.ts";
import { type WebEnvironmentConfigInput, WebEnvironmentConfigSchema } from "./config.ts";
import { CORE_DIR, createWebSuite, type WebSuite } from "./suite.ts";
import { startTaskServer } from "./task-server.ts";
import { WebEnvironment } from "./web-environment.ts";

export interface WebEnvironmentDeps {
  /** Browser pool to use; default the process-wide shared pool (released on close). */
  pool?: BrowserPool;
  /** Task suite; default from `config.tasksDir`, else the built-in suite. */
  suite?: WebSuite;
  logger?: Logger;
}

/** Creates a web environment (starts its task server; the browser launches on the first reset). */
export async function createWebEnvironment(
  config: WebEnvironmentConfigInput = {},
  deps: WebEnvironmentDeps = {},
): Promise<WebEnvironment> {
  const parsed = WebEnvironmentConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
    throw new UserError("config.invalid", `invalid web environment config: ${issues}`);
  }
  const cfg = parsed.data;
  const suite =
    deps.suite ??
    createWebSuite(
      cfg.tasksDir === undefined
        ? {}
        : {
            dir: cfg.tasksDir,
            ...(cfg.suiteName ? { name: cfg.suiteName } : {}),
            ...(cfg.tasksRoot ? { root: cfg.tasksRoot } : {}),
          },
    );
  const server = await startTaskServer({
    mounts: [{ prefix: suite.mountPath, dir: suite.root }],
    coreDir: CORE_DIR,
  });
  const sharedPool = deps.pool === undefined;
  const pool =
    deps.pool ??
    BrowserPool.shared({
      ...(cfg.executablePath ? { executablePath: cfg.executablePath } : {}),
      headless: cfg.headless,
    });
  return new WebEnvironment({
    config: cfg,
    suite,
    pool,
    sharedPool,
    server,
    logger: deps.logger ?? silentLogger,
  });
}
