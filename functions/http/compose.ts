import type { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "../lib/app-error.ts";
import type { IdGenerator } from "../lib/ids.ts";
import type { Logger } from "../lib/logger.ts";
import type { ApiKeyService } from "../services/api-key.service.ts";
import type { AppEnv } from "./app-env.ts";
import { createRouter } from "./create-router.ts";
import { DOCS_ASSETS_PREFIX, mountDocs } from "./docs-page.ts";
import { errorHandler, renderError } from "./error-handler.ts";
import { methodIndex } from "./method-not-allowed.ts";
import { requireApiKey } from "./middleware/auth.ts";
import { requestId } from "./middleware/request-id.ts";
import { storableText } from "./middleware/storable-text.ts";
import { buildOpenApiDocument } from "./openapi-document.ts";

/** Largest request body accepted on any endpoint (documented in the OpenAPI description). */
export const MAX_BODY_BYTES = 1024 * 1024;

export type SurfaceName = "agent" | "fetch" | "search" | "browser";

export interface Surface {
  name: SurfaceName;
  /** Human name used in messages and the docs. */
  title: string;
  /** Mount point: "" for the agent surface (its paths start with /v1), "/fetch", … */
  prefix: string;
  app: OpenAPIHono<AppEnv>;
  /** False until the capability lands: its paths answer 404 NOT_FOUND saying so. */
  available: boolean;
  /** Paths under these prefixes carry their own credential (an unguessable token) instead of X-API-Key. */
  publicPathPrefixes?: string[];
}

export interface HttpDeps {
  ids: IdGenerator;
  logger: Logger;
  apiKeys: ApiKeyService;
  version: string;
}

/**
 * One HTTP app over the given surfaces: request ids, the error renderer, authentication on every
 * endpoint, the body limit, only text Postgres can store (storable-text.ts), 404/405, and the
 * public documentation routes (the OpenAPI documents, the reference page and a health check are
 * the only paths readable without a key).
 */
export function composeApp(deps: HttpDeps, surfaces: Surface[]): OpenAPIHono<AppEnv> {
  const app = createRouter();
  app.onError(errorHandler(deps.logger));
  app.use("*", requestId(deps.ids));

  const publicPaths = new Set(["/healthz", "/openapi.json", "/docs"]);
  for (const s of surfaces) if (s.prefix) publicPaths.add(`${s.prefix}/openapi.json`);
  const publicPrefixes = surfaces.flatMap((s) => (s.publicPathPrefixes ?? []).map((p) => `${s.prefix}${p}`));
  const isPublic = (path: string) =>
    publicPaths.has(path.length > 1 ? path.replace(/\/$/, "") : path) ||
    path.startsWith(DOCS_ASSETS_PREFIX) ||
    publicPrefixes.some((p) => path.startsWith(p));

  app.get("/healthz", (c) => c.json({ status: "ok", version: deps.version }));
  mountDocs(app, { title: "Osprey API reference" });

  app.use("*", requireApiKey(deps.apiKeys, isPublic));
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError("INVALID_INPUT", `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`, {
          status: 413,
        });
      },
    }),
  );
  app.use("*", storableText());

  // A surface's own document is routed before the surface: one with a `/{id}` route (the browser's
  // GET /{sessionId}) would otherwise take `openapi.json` for an id, and reach that handler without a
  // key, since this path is public.
  // Documents are built on first request (after every route is registered), once each: building
  // them walks every schema (~0.45 s of a server's start, and of every app a test composes).
  const ownDocs = new Map<string, unknown>();
  const ownDoc = (s: Surface) => {
    let doc = ownDocs.get(s.prefix);
    if (doc === undefined) {
      doc = buildOpenApiDocument(s.app, { version: deps.version, surfaces: [s], serverPrefix: s.prefix });
      ownDocs.set(s.prefix, doc);
    }
    return doc;
  };
  for (const s of surfaces) if (s.prefix) app.get(`${s.prefix}/openapi.json`, (c) => c.json(ownDoc(s)));
  for (const s of surfaces) app.route(s.prefix || "/", s.app);

  let combined: unknown;
  app.get("/openapi.json", (c) => {
    combined ??= buildOpenApiDocument(app, { version: deps.version, surfaces, serverPrefix: "" });
    return c.json(combined);
  });

  const allowedMethods = methodIndex(app);
  // Rendered here rather than thrown: Hono does not pass a notFound handler's errors to onError.
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) {
      return renderError(
        c,
        new AppError("NOT_FOUND", `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(", ")}.`, {
          status: 405,
          headers: { Allow: allowed.join(", ") },
        }),
      );
    }
    const surface = surfaces.find((s) =>
      s.prefix ? c.req.path === s.prefix || c.req.path.startsWith(`${s.prefix}/`) : surfaces.length === 1,
    );
    if (surface && !surface.available) {
      return renderError(c, new AppError("NOT_FOUND", `The ${surface.title} is not available on this server yet.`));
    }
    return renderError(
      c,
      new AppError("NOT_FOUND", `No endpoint at ${c.req.method} ${c.req.path}. See /docs for the API reference.`),
    );
  });
  return app;
}
