import { z } from "@hono/zod-openapi";
import { FETCH_ERROR_CODES } from "../../../schema/fetch-errors.ts";
import { DocTreeSchema } from "../../extract/output/tree-schema.ts";
import { timestampParam } from "../../lib/date-params.ts";
import { PaginationQuery } from "../../lib/pagination.ts";

export const FetchErrorSchema = z
  .object({
    url: z.string(),
    error: z.enum(FETCH_ERROR_CODES),
    status: z.number().int().optional().openapi({ description: "Upstream status, for target_http_error and page_not_found." }),
    unmatched_selectors: z.array(z.string()).optional(),
    candidate_selectors: z.array(z.string()).max(10).optional(),
    message: z
      .string()
      .optional()
      .openapi({ description: "A human-readable explanation, when there is more to say than the code." }),
  })
  .openapi("FetchError");

export const FetchResultSchema = z
  .object({
    url: z.string().openapi({ description: "The requested URL." }),
    final_url: z.string().openapi({ description: "The URL after redirects." }),
    title: z.string().nullable().openapi({ description: "og:title first, then the title tag." }),
    description: z.string().nullable().openapi({ description: "og:description first, then the meta description." }),
    language: z.string().nullable().openapi({ description: "Primary language code, e.g. en." }),
    author: z.string().nullable(),
    published_date: z.string().nullable().openapi({ description: "ISO 8601 when the page's date could be parsed." }),
    text: z.union([z.string(), DocTreeSchema]).openapi({
      description: "The main content: a string for markdown and html, a DocTree object for json.",
    }),
    links: z
      .array(z.string())
      .optional()
      .openapi({ description: "Only with links=true: absolute, de-duplicated anchor URLs in scope." }),
    image_links: z
      .array(z.string())
      .optional()
      .openapi({ description: "Only with image_links=true: absolute image URLs in scope." }),
    not_modified: z
      .literal(true)
      .optional()
      .openapi({ description: "Present only when the origin answered 304 to a conditional request." }),
    etag: z.string().optional(),
    last_modified: z.string().optional(),
    unmatched_selectors: z
      .array(z.string())
      .optional()
      .openapi({ description: "include_selectors entries that matched nothing (partial miss)." }),
    cached: z.boolean().openapi({
      description:
        "True when the result was built from the fetch cache instead of a live fetch (see ttl). The cache is keyed by URL and shared by every account: fetches carry no credentials, so one account's fetch can answer another's.",
    }),
    cached_at: z.string().nullable().openapi({
      description: "When the cached response was fetched from the origin (ISO 8601); null for a live fetch.",
      example: "2026-11-26T17:42:05.120Z",
    }),
    latency_ms: z.number().nullable(),
    format: z.enum(["markdown", "html", "json"]),
  })
  .openapi("FetchResult");

export const FetchResponseSchema = z
  .object({
    results: z.array(FetchResultSchema),
    errors: z.array(FetchErrorSchema),
    request_id: z.string().optional().openapi({ description: "Present only when errors is non-empty (always in X-Request-ID)." }),
  })
  .openapi("FetchResponse");

export const FetchUsageQuery = PaginationQuery.extend({
  start_after: timestampParam("start_after", "Only rows created after this time."),
  end_before: timestampParam("end_before", "Only rows created before this time."),
  status: z
    .enum(["completed", "failed"])
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "completed or failed." }),
})
  .strict()
  .refine((q) => !q.start_after || !q.end_before || q.start_after < q.end_before, {
    message: "start_after must be earlier than end_before",
    path: ["start_after"],
  });

export const FetchUsageItemSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    final_url: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    language: z.string().nullable(),
    author: z.string().nullable(),
    published_date: z.string().nullable(),
    format: z.enum(["markdown", "html", "json"]),
    status: z.enum(["completed", "failed"]),
    request_origin: z
      .string()
      .openapi({ description: "api, cli, mcp, python-sdk, js-sdk… (from X-Request-Origin; mcp for MCP keys)." }),
    request_id: z.string().nullable(),
    text_length: z.number().int().nullable(),
    links_count: z.number().int(),
    image_links_count: z.number().int(),
    latency_ms: z.number().nullable(),
    not_modified: z.literal(true).optional(),
    etag: z.string().optional(),
    last_modified: z.string().optional(),
    created_at: z.string().datetime(),
    error: z.string().nullable(),
  })
  .openapi("FetchUsageItem");
