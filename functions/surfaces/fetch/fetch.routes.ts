import { createRoute } from "@hono/zod-openapi";
import { MAX_ELEMENTS } from "../../extract/extract.ts";
import { FetchRequestSchema } from "../../fetch/fetch-request.schema.ts";
import { errorResponses, jsonBody } from "../../http/openapi.ts";
import { pageSchema } from "../../lib/pagination.ts";
import { FetchResponseSchema, FetchUsageItemSchema, FetchUsageQuery } from "./fetch.schemas.ts";

export const fetchRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["fetch"],
  summary: "Fetch up to 10 URLs as Markdown, HTML or a document tree",
  description: [
    "Fetches every URL in parallel; each succeeds (`results`) or fails (`errors`, with a per-URL code) on its own, and the",
    "response is 200 either way. Only public addresses are fetched: private, loopback, link-local and cloud-metadata",
    "destinations are refused (`invalid_url`), also when reached through a redirect (`invalid_redirect_url`) or DNS.",
    "Pages that need scripts are rendered in Chromium. Response bodies are read up to 15 MiB. A page of more than",
    `${MAX_ELEMENTS.toLocaleString("en-US")} elements is not read (\`empty_content\`, its \`message\` giving the count), and a page`,
    "whose reading runs past the extractor's budget (30 s a page on a server) answers `timeout`. The per-key limit is",
    "counted in URLs per minute (free 60, payg 120, starter 300, pro 600). Set `X-Request-Origin` (api, cli, mcp,",
    "python-sdk, js-sdk…) to label usage rows.",
  ].join(" "),
  request: { body: jsonBody(FetchRequestSchema) },
  responses: {
    200: {
      description: "Per-URL results and errors. `request_id` is in the body only when `errors` is non-empty.",
      content: { "application/json": { schema: FetchResponseSchema } },
    },
    ...errorResponses(400, 413, 422, 429),
  },
});

export const fetchUsageRoute = createRoute({
  method: "get",
  path: "/usage",
  tags: ["fetch"],
  summary: "Fetch usage history",
  description: "One row per fetched URL, newest first, for the calling key's account.",
  request: { query: FetchUsageQuery },
  responses: {
    200: {
      description: "A page of usage rows.",
      content: { "application/json": { schema: pageSchema(FetchUsageItemSchema, "FetchUsagePage") } },
    },
    ...errorResponses(400),
  },
});
