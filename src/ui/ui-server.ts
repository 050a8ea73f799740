import { resolve } from "node:path";
import { openSqliteStore } from "../store/index.ts";
import { html } from "./html.ts";
import { page } from "./layout.ts";
import { discoverWorldbooks } from "./pages/worldbook-page.ts";
import { notFound, registerRoutes } from "./routes.ts";
import type { UiContext } from "./ui-context.ts";

export interface UiServerOptions {
  /** The run store directory; opened read-only. */
  storeDir: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  worldbooks?: ReadonlyArray<string>;
  sklDirs?: ReadonlyArray<string>;
}

export interface UiServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly context: UiContext;
  /** Stops listening and closes the store. */
  close(): Promise<void>;
}

/**
 * Starts the dashboard on 127.0.0.1 (never another interface): server-rendered pages over the run
 * store, opened read-only (a store being written meanwhile is read as it grows).
 */
export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const storeDir = resolve(options.storeDir);
  const store = openSqliteStore({ dir: storeDir, readOnly: true });
  const ctx: UiContext = {
    store,
    storeDir,
    worldbooks: discoverWorldbooks(storeDir, options.worldbooks ?? []),
    sklDirs: (options.sklDirs ?? []).map((d) => resolve(d)),
  };
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  registerRoutes(app, ctx);
  app.setNotFoundHandler((request, reply) => notFound(reply, `no page ${request.url}`));
  app.setErrorHandler((error, _request, reply) => {
    const body = html`<p class="bad">${(error as Error).message}</p><p><a href="/">Back to the runs</a></p>`;
    reply
      .code(500)
      .type("text/html; charset=utf-8")
      .send(page("Error", [], body).value);
  });
  try {
    await app.listen({ host: "127.0.0.1", port: options.port ?? 8080 });
  } catch (error) {
    store.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 8080);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    context: ctx,
    async close() {
      await app.close();
      store.close();
    },
  };
}
