import type { FastifyInstance, FastifyReply } from "fastify";
import { UI_CSS, UI_JS } from "./assets.ts";
import { html } from "./html.ts";
import { page } from "./layout.ts";
import { knowledgePage, knowledgeTablePage } from "./pages/knowledge-page.ts";
import { robustnessPage } from "./pages/robustness-page.ts";
import { runPage } from "./pages/run-page.ts";
import { runsPage } from "./pages/runs-page.ts";
import { taskPage } from "./pages/task-page.ts";
import { trajectoryPage } from "./pages/trajectory-page.ts";
import { nodePage, treePage } from "./pages/tree-page.ts";
import { rulePage, worldbookPage, worldbooksPage } from "./pages/worldbook-page.ts";
import type { PageResult, UiContext } from "./ui-context.ts";

type Params = Record<string, string>;
type Query = Record<string, unknown>;

/** Only what this server sends: its own stylesheet, script and images (inline style attributes allowed). */
const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'; base-uri 'none'; form-action 'none'";

function send(reply: FastifyReply, result: PageResult | string): FastifyReply {
  reply.header("content-security-policy", CSP).header("x-content-type-options", "nosniff");
  if (typeof result === "string") return reply.type("text/html; charset=utf-8").send(result);
  if ("notFound" in result) return notFound(reply, result.notFound);
  return reply.type("text/html; charset=utf-8").send(result.html);
}

export function notFound(reply: FastifyReply, message: string): FastifyReply {
  const body = html`<p class="bad">${message}</p><p><a href="/">Back to the runs</a></p>`;
  return reply
    .code(404)
    .type("text/html; charset=utf-8")
    .send(page("Not found", [], body).value);
}

/** The mime type of stored image bytes, by their signature (screenshots are PNG, JPEG or WebP). */
export function sniffMime(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "image/jpeg";
  if (bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return "image/webp";
  return "application/octet-stream";
}

function index(value: string | undefined): number {
  return /^\d{1,6}$/.test(value ?? "") ? Number(value) : -1;
}

/** Every page of the dashboard (GET only: the dashboard never writes). */
export function registerRoutes(app: FastifyInstance, ctx: UiContext): void {
  const get = (
    path: string,
    render: (p: Params, q: Query) => PageResult | string | Promise<PageResult | string>,
  ) =>
    app.get(path, async (request, reply) =>
      send(reply, await render(request.params as Params, request.query as Query)),
    );

  get("/", () => runsPage(ctx));
  get("/runs/:runId", (p) => runPage(ctx, p.runId as string));
  get("/runs/:runId/tasks/:taskId", (p, q) => taskPage(ctx, p.runId as string, p.taskId as string, q));
  get("/trajectories/:id", (p, q) => trajectoryPage(ctx, p.id as string, q));
  get("/trees/:treeId", (p, q) => treePage(ctx, p.treeId as string, q));
  get("/trees/:treeId/nodes/:nodeId", (p) => nodePage(ctx, p.treeId as string, p.nodeId as string));
  get("/robustness", () => robustnessPage(ctx));
  get("/knowledge", () => knowledgePage(ctx));
  get("/knowledge/tables/:index", (p, q) => knowledgeTablePage(ctx, index(p.index), q));
  get("/worldbooks", () => worldbooksPage(ctx));
  get("/worldbooks/:index", (p) => worldbookPage(ctx, index(p.index)));
  get("/worldbooks/:index/rules/:ruleId", (p) => rulePage(ctx, index(p.index), p.ruleId as string));

  app.get("/artefacts/:sha256", async (request, reply) => {
    const bytes = ctx.store.getArtefact((request.params as Params).sha256 as string);
    if (!bytes) return notFound(reply, "no such artefact in the store");
    return reply
      .type(sniffMime(bytes))
      .header("cache-control", "public, max-age=31536000, immutable")
      .header("x-content-type-options", "nosniff")
      .send(Buffer.from(bytes));
  });
  app.get("/assets/ui.css", async (_request, reply) => reply.type("text/css; charset=utf-8").send(UI_CSS));
  app.get("/assets/ui.js", async (_request, reply) =>
    reply.type("text/javascript; charset=utf-8").send(UI_JS),
  );
  app.get("/favicon.ico", async (_request, reply) => reply.code(204).send());
}
