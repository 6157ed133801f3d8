import { z } from "@hono/zod-openapi";
import { FETCH_ERROR_CODES } from "../../../schema/fetch-errors.ts";
import { DocTreeSchema } from "../../extract/output/tree-schema.ts";
import { timestampParam } from "../../lib/date-params.ts";
import { PaginationQuery } from "../../lib/pagination.ts";

/** Spec 4.6 and 8: the limits of a fetch request. */
export const MAX_URLS = 10;
export const MAX_PER_URL_TIMEOUT_MS = 110_000;
const SELECTORS_MAX = 20;
const SELECTOR_MAX_LENGTH = 1000;

const httpUrl = z
  .string()
  .min(1)
  .max(8192, "URLs are limited to 8192 characters")
  .refine((v) => URL.canParse(v), "must be an absolute URL including the scheme, e.g. https://example.com/")
  .refine((v) => !URL.canParse(v) || /^https?:$/.test(new URL(v).protocol), "only http and https URLs can be fetched")
  .openapi({ example: "https://example.com/article" });

const selectorList = (what: string) =>
  z
    .array(z.string().min(1).max(SELECTOR_MAX_LENGTH))
    .min(1)
    .max(SELECTORS_MAX)
    .optional()
    .openapi({
      description: `${what} 1 to 20 CSS selectors, each 1 to 1000 characters; invalid selector syntax answers 422.`,
      example: ["article", "#content"],
    });

export const MAX_CONDITIONAL_LENGTH = 1024;

/** Whether `v` has a character a header value cannot carry: a control character other than tab, or one beyond Latin-1. */
const unsendable = (v: string, which: "control" | "wide"): boolean =>
  [...v].some((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return which === "control" ? (c < 0x20 && c !== 0x09) || c === 0x7f : c > 0xff;
  });

/**
 * A value sent verbatim as a request header: CR or LF would end the header and let the caller
 * write others of their own, other control characters (tab aside) and characters beyond Latin-1
 * cannot be sent at all, so they are refused here with a 400 rather than failing the fetch later.
 */
const headerValue = (name: string) =>
  z
    .string()
    .min(1)
    .max(MAX_CONDITIONAL_LENGTH)
    .refine((v) => !unsendable(v, "control"), `${name} must not contain control characters such as CR or LF`)
    .refine((v) => !unsendable(v, "wide"), `${name} must contain only Latin-1 characters (it is sent as an HTTP header)`)
    .optional();

export const FetchRequestSchema = z
  .object({
    urls: z.array(httpUrl).min(1).max(MAX_URLS).openapi({ description: "1 to 10 http(s) URLs, fetched in parallel." }),
    purpose: z
      .string()
      .min(1)
      .max(2000)
      .refine((v) => v.trim().length > 0, "must not be whitespace only")
      .optional()
      .openapi({ description: "Why the URLs are fetched (1 to 2000 characters)." }),
    format: z.enum(["markdown", "html", "json"]).default("markdown").openapi({
      description: "markdown (default), html (cleaned main-content HTML) or json (a document tree, see DocTree).",
    }),
    links: z.boolean().default(false).openapi({ description: "Return `links`: absolute URLs of the anchors in scope." }),
    image_links: z
      .boolean()
      .default(false)
      .openapi({ description: "Return `image_links`: absolute URLs of the images in scope." }),
    ttl: z.number().int().min(0).optional().openapi({
      description:
        "Cache tolerance in seconds. Omitted: any cached entry is accepted. 0: prefer a live fetch (a cached entry is still served while the origin's cache lifetime covers its age, or when the host is on the operator's never-expire list). N: accept entries younger than N seconds; the origin's lifetime and the never-expire list can extend but never shorten this.",
    }),
    per_url_timeout_ms: z.number().int().min(1).max(MAX_PER_URL_TIMEOUT_MS).optional().openapi({
      description: "Deadline per URL (1 to 110000 ms; default 110000). On overrun only that URL fails with `timeout`.",
    }),
    if_none_match: headerValue("if_none_match").openapi({
      description: `Sent verbatim as If-None-Match. Single URL only; at most ${MAX_CONDITIONAL_LENGTH} characters, no control characters (CR, LF, …) and nothing beyond Latin-1.`,
    }),
    if_modified_since: headerValue("if_modified_since").openapi({
      description: `Sent verbatim as If-Modified-Since. Single URL only; at most ${MAX_CONDITIONAL_LENGTH} characters, no control characters (CR, LF, …) and nothing beyond Latin-1.`,
    }),
    include_etag_and_last_modified: z.boolean().default(false).openapi({
      description: "Return the origin's ETag and Last-Modified (`etag`, `last_modified`). Forces a live fetch.",
    }),
    include_selectors: selectorList(
      "Scope the result to elements matching any of these (document order, verbatim, no boilerplate removal).",
    ),
    exclude_selectors: selectorList("Remove elements matching these before anything else."),
  })
  .strict()
  .superRefine((body, ctx) => {
    // Spec 4.6 rule 1: conditional fields only with a single URL.
    for (const field of ["if_none_match", "if_modified_since"] as const) {
      if (body[field] !== undefined && body.urls.length > 1) {
        ctx.addIssue({ code: "custom", path: [field], message: `${field} can only be used with a single URL` });
      }
    }
  })
  .openapi("FetchRequest");

export type FetchRequest = z.infer<typeof FetchRequestSchema>;

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
