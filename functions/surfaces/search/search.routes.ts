import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/openapi.ts";
import { pageSchema } from "../../lib/pagination.ts";
import { SearchQueryParams, SearchResponseSchema, SearchUsageItemSchema, SearchUsageQuery } from "../../search/search.schemas.ts";

const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "The per-minute search limit of this key.", schema: { type: "integer" as const } },
  "X-RateLimit-Remaining": { description: "Requests left in the current minute.", schema: { type: "integer" as const } },
  "X-RateLimit-Reset": { description: "Seconds until the current minute ends.", schema: { type: "integer" as const } },
};

export const searchRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["search"],
  summary: "Search the web, news or research papers",
  description: [
    "Answers one page (up to 10 results) for the query, merged from every search provider configured on this server",
    "that serves the domain_type (the local index, SearXNG, Brave, OpenAlex): providers are asked in parallel, their",
    "results interleaved by rank, de-duplicated by URL and filtered again by the domain and date parameters.",
    "The local index answers each account with the operator's imported and crawled pages and the pages this account",
    "fetched through the Fetch API; pages other accounts fetched are never returned, except those the operator has",
    "chosen to share because they were public by every sign (no query string, no credentials, no cookies, cacheable).",
    "When neither location nor language is given they are US and en; when one is given the other is its predominant",
    "pairing (BR gives pt, ja gives JP). `site:`/`-site:` operators in `query` still work (deprecated): they are",
    "merged into include_domains/exclude_domains and removed from the executed `query`. For an identical request by the same",
    "account within 60 seconds the upstreams' (SearXNG, Brave, OpenAlex) results come from a short-lived cache (the usage",
    "row says `cached: true`); the local index is asked every time, so a page just fetched or imported is found at once.",
    "The per-key limit is counted",
    "in requests per minute (free 30, payg 30, starter 60, pro 120). Errors: 402 FORBIDDEN when the account lacks",
    "Search API access; 403 FORBIDDEN when every provider failed and an upstream refused the request; 404 NOT_FOUND",
    "when the operator has not enabled the Search API; 503 SERVICE_BUSY (with Retry-After: 5) when every provider failed or timed out",
    "(retry with backoff). When only some providers fail, the others' results are returned (200).",
  ].join(" "),
  request: { query: SearchQueryParams },
  responses: {
    200: {
      description: "One page of results.",
      headers: RATE_HEADERS,
      content: { "application/json": { schema: SearchResponseSchema } },
    },
    ...errorResponses(400, 402, 403, 404, 429, 503),
  },
});

export const searchUsageRoute = createRoute({
  method: "get",
  path: "/usage",
  tags: ["search"],
  summary: "Search usage history",
  description:
    "One row per search request (successful or not, once authenticated), newest first, for the calling key's account. `created_after`/`created_before` bound the creation time (both exclusive).",
  request: { query: SearchUsageQuery },
  responses: {
    200: {
      description: "A page of usage rows.",
      content: { "application/json": { schema: pageSchema(SearchUsageItemSchema, "SearchUsagePage") } },
    },
    ...errorResponses(400, 404),
  },
});
