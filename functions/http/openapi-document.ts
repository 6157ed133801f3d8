import type { OpenAPIHono } from "@hono/zod-openapi";
import { RUN_ERROR_HELP } from "../../schema/runs.ts";
import type { AppEnv } from "./app-env.ts";
import { SECURITY_SCHEME_NAME } from "./openapi.ts";

interface SurfaceInfo {
  name: string;
  title: string;
  prefix: string;
  available: boolean;
}

const RUN_ERROR_HELP_LIST = Object.entries(RUN_ERROR_HELP)
  .map(([code, help]) => `- \`${code}\`: ${help}`)
  .join("\n");

const DESCRIPTION = `Osprey lets programs use the web: an automation agent that drives a real browser, a page-fetch
API that turns URLs into clean Markdown, HTML or a JSON tree, a search API, and remote browser sessions.

## Authentication
Every endpoint requires the \`X-API-Key\` header. Outcomes, all 401: header absent **or blank**
(\`X-API-Key: \` with no value counts as absent) → \`MISSING_API_KEY\`; key unknown or revoked →
\`INVALID_API_KEY\`; key expired or its account suspended → \`UNAUTHORIZED\`. Authenticated but
lacking an entitlement, capability or credits → 403 \`FORBIDDEN\`, with a message that names the
condition. Only \`/openapi.json\`, \`/docs\` and \`/healthz\` are readable without a key.

## Errors
Every non-2xx response has the body \`{"error":{"code","message","details"?},"request_id"}\`, and every
response (2xx included) carries \`X-Request-ID\`. \`details\` appears only with 400 \`INVALID_INPUT\`:
one entry per validation issue with \`code\`, \`path\`, \`message\`, plus \`expected\` (invalid_type) or
\`values\` (invalid_value), and \`location\` (body, query, path). Statuses: 400 invalid input (also a
malformed JSON body and a JSON endpoint called without \`Content-Type: application/json\`); 401; 403;
404 unknown path or resource (also a capability not available on this server); 405 known path,
other method (\`Allow\` lists the methods; code \`NOT_FOUND\`); 409 \`RETRY_REQUIRED\`; 413 body over
1 MiB (code \`INVALID_INPUT\`); 429 \`RATE_LIMIT_EXCEEDED\`; 500 \`INTERNAL_ERROR\` (never echoes internals).
On the self-hosted server the request line and headers together may take 128 KiB (every valid search
fits, its query and purpose in any script); past that the answer is 431 with code \`INVALID_INPUT\`, and
a request that is not valid HTTP gets 400 \`INVALID_INPUT\`; both close the connection. In the AWS
deployment CloudFront takes URLs of at most 8,192 bytes: a search query of more than about 800
characters in a script that percent-encodes to 9 bytes a character (Chinese, Japanese) is refused there
with CloudFront's own 414.

## Run errors
A run that fails after it was accepted answers HTTP 200 with status \`FAILED\` (or \`CANCELLED\`) and an
\`error\` object: \`code\`, \`message\`, \`category\`, \`retry_after\` and, for the codes below,
\`help_message\` and \`help_url\` (this section).

${RUN_ERROR_HELP_LIST}

## Rate limits
Search is limited in requests per minute and fetch in URLs per minute, per API key: free 30 / 60,
payg 30 / 120, starter 60 / 300, pro 120 / 600. An operator can set custom limits per account.
Windows are fixed minutes aligned to the clock; a refused request does not count. A 429 carries
\`Retry-After\` (seconds to the next window) and \`X-RateLimit-Limit\`; successful rate-limited responses
carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`. Browser sessions: creations
per minute per API key free 5, payg 10, starter 30, pro 60, and open sessions per account 1 / 3 / 5 / 10
(a 429 for either carries \`Retry-After\`).

## Pagination
Usage listings take \`limit\` (1 to 1000, default 100) and \`page\` (from 1, default 1) and answer
\`{items, total, limit, page, total_pages, has_more}\`.`;

/** The OpenAPI 3.1 document of an app; generated from the registered routes, never hand-written. */
export function buildOpenApiDocument(
  app: OpenAPIHono<AppEnv>,
  opts: { version: string; surfaces: SurfaceInfo[]; serverPrefix: string },
) {
  const single = opts.surfaces.length === 1 ? opts.surfaces[0] : undefined;
  const unavailable = opts.surfaces.filter((s) => !s.available).map((s) => `${s.title} (\`${s.prefix || "/"}\`)`);
  const note = unavailable.length ? `\n\n**Not available on this server yet:** ${unavailable.join(", ")}.` : "";
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: single ? `Osprey ${single.title}` : "Osprey API",
      version: opts.version,
      description: DESCRIPTION + note,
    },
    servers: [{ url: opts.serverPrefix || "/", description: "This server" }],
    security: [{ [SECURITY_SCHEME_NAME]: [] }],
    tags: opts.surfaces.map((s) => ({ name: s.name, description: s.title })),
  });
}
