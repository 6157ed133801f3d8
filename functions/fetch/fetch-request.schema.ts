/**
 * The body of a fetch request (spec 4.6), parsed once at the edge and handed to the fetch service;
 * `osprey index add` builds one too. The response and usage schemas stay with the routes
 * (surfaces/fetch/fetch.schemas.ts).
 */
import { z } from "@hono/zod-openapi";

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
      description: `${what} 1 to 20 CSS selectors, each 1 to 1000 characters; invalid selector syntax answers 422. Matched in time linear in the page, whatever the chain of combinators; a pseudo-class holding a selector of its own (\`:not(div p)\`, \`:has(section p)\`) is bounded by a per-page budget shared by both lists: past it the URL answers \`timeout\`, its \`message\` naming the selector (an exclusion left unapplied would return what was to be taken out).`,
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
