import { z } from "@hono/zod-openapi";
import { DOMAIN_TYPES } from "../../schema/search.ts";
import { calendarDateParam, timestampParam } from "../lib/date-params.ts";
import { PaginationQuery } from "../lib/pagination.ts";
import { normaliseLanguage, normaliseLocation, resolveLocale } from "./locale.ts";
import { normaliseDomain, parseSiteOperators, unique } from "./query-text.ts";
import type { SearchQuery } from "./types.ts";

/** Spec 4.7 and 8: the limits of a search request. */
export const MAX_PAGE = 10;
export const MAX_RECENCY_MINUTES = 5_256_000;
export const MAX_PURPOSE = 2000;
export const MAX_QUERY = 2000;
export const MAX_DOMAINS = 100;

const param = (name: string) => ({ param: { name, in: "query" as const } });

const intParam = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^[+-]?\d+$/, `${name} must be an integer`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .openapi({ ...param(name), type: "integer", minimum: min, maximum: max });

const domainList = (name: string, what: string) =>
  z
    .string()
    .optional()
    .openapi({
      ...param(name),
      type: "string",
      description: `${what}, comma-separated host names (e.g. \`example.com,docs.rs\`); a host also matches its subdomains. At most ${MAX_DOMAINS}.`,
      example: "example.com,docs.rs",
    });

const RawSearchQuery = z
  .object({
    query: z
      .string()
      .max(MAX_QUERY)
      .refine((v) => v.trim().length > 0, "query must not be empty")
      .openapi({
        ...param("query"),
        description:
          "The search terms (required, at most 2000 characters). Deprecated but working: `site:host` and `-site:host` operators (any case, host bare or in double quotes) are removed from the text and added to include_domains / exclude_domains; the response's `query` is the text without them.",
        example: "osprey migration routes",
      }),
    purpose: z
      .string()
      .max(MAX_PURPOSE)
      .optional()
      .openapi({ ...param("purpose"), description: "Why the search is made (at most 2000 characters)." }),
    location: z
      .string()
      .optional()
      .openapi({
        ...param("location"),
        description:
          "ISO 3166-1 alpha-2 country (e.g. US, GB, FR, DE). Alone, it implies the country's predominant language (BR gives pt). Neither location nor language: US and en.",
        example: "US",
      }),
    language: z
      .string()
      .optional()
      .openapi({
        ...param("language"),
        description:
          "ISO 639 language code (e.g. en, fr, de). Alone, it implies its predominant country (ja gives JP, fr gives FR).",
        example: "en",
      }),
    include_domains: domainList("include_domains", "Restrict results to these domains"),
    exclude_domains: domainList("exclude_domains", "Drop results from these domains (exclusion wins over inclusion)"),
    recency_minutes: intParam("recency_minutes", 1, MAX_RECENCY_MINUTES).openapi({
      description: "Only results published in the last N minutes (1 to 5256000). Not with after_date/before_date.",
    }),
    after_date: calendarDateParam("after_date").openapi({ description: "Inclusive lower bound, YYYY-MM-DD (web and news)." }),
    before_date: calendarDateParam("before_date").openapi({ description: "Inclusive upper bound, YYYY-MM-DD (web and news)." }),
    domain_type: z
      .enum(DOMAIN_TYPES)
      .default("web")
      .openapi({ ...param("domain_type"), description: "web (default), news or research_paper." }),
    pub_year_min: intParam("pub_year_min", 0, 9999).openapi({ description: "research_paper only: earliest publication year." }),
    pub_year_max: intParam("pub_year_max", 0, 9999).openapi({ description: "research_paper only: latest publication year." }),
    page: intParam("page", 0, MAX_PAGE).openapi({
      description: `Result page, from 0 to ${MAX_PAGE}; a page holds up to 10 results.`,
      default: 0,
    }),
  })
  .strict();

type Raw = z.infer<typeof RawSearchQuery>;
type Ctx = z.core.$RefinementCtx<Raw>;

function parseDomains(raw: string | undefined, field: "include_domains" | "exclude_domains", ctx: Ctx): string[] {
  if (raw === undefined || raw.trim() === "") return [];
  const entries = raw.split(",");
  if (entries.length > MAX_DOMAINS) {
    ctx.addIssue({ code: "custom", path: [field], message: `${field} takes at most ${MAX_DOMAINS} domains` });
    return [];
  }
  const out: string[] = [];
  entries.forEach((entry, i) => {
    const host = normaliseDomain(entry);
    if (host === null) {
      ctx.addIssue({ code: "custom", path: [field, i], message: `${JSON.stringify(entry.trim())} is not a domain name` });
    } else out.push(host);
  });
  return out;
}

/** Rules 2 to 4 (rule 5: every violation is a 400 issue at the offending parameter). */
function checkRules(q: Raw, ctx: Ctx): void {
  const add = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  const research = q.domain_type === "research_paper";
  if (research) {
    for (const f of ["after_date", "before_date", "recency_minutes"] as const) {
      if (q[f] !== undefined) add(f, `${f} is not supported with domain_type=research_paper; use pub_year_min/pub_year_max`);
    }
  } else {
    for (const f of ["pub_year_min", "pub_year_max"] as const) {
      if (q[f] !== undefined) add(f, `${f} can only be used with domain_type=research_paper`);
    }
    if (q.recency_minutes !== undefined) {
      for (const f of ["after_date", "before_date"] as const) {
        if (q[f] !== undefined) add(f, `${f} cannot be combined with recency_minutes`);
      }
    }
  }
  if (q.after_date && q.before_date && q.after_date > q.before_date) {
    add("after_date", "after_date must be on or before before_date");
  }
  if (q.pub_year_min !== undefined && q.pub_year_max !== undefined && q.pub_year_min > q.pub_year_max) {
    add("pub_year_min", "pub_year_min must not be greater than pub_year_max");
  }
}

/** The validated request: the executed SearchQuery (rule 1 resolved, operators merged) and the purpose. */
export interface SearchRequest {
  search: SearchQuery;
  purpose?: string;
}

export type RawSearchParams = Raw;

/** Every rule of 4.7 as an issue at the offending parameter; the schema stays an object (documented params). */
export const SearchQueryParams = RawSearchQuery.superRefine((q, ctx) => {
  checkRules(q, ctx);
  if (q.location !== undefined && normaliseLocation(q.location) === null) {
    ctx.addIssue({ code: "custom", path: ["location"], message: "location must be an ISO 3166-1 alpha-2 country code, e.g. US" });
  }
  if (q.language !== undefined && normaliseLanguage(q.language) === null) {
    ctx.addIssue({ code: "custom", path: ["language"], message: "language must be an ISO 639 language code, e.g. en" });
  }
  const include = parseDomains(q.include_domains, "include_domains", ctx);
  parseDomains(q.exclude_domains, "exclude_domains", ctx);
  const ops = parseSiteOperators(q.query);
  for (const bad of ops.invalid) {
    ctx.addIssue({ code: "custom", path: ["query"], message: `site:${bad} does not name a domain` });
  }
  if (q.query.trim() !== "" && ops.text === "" && include.length + ops.include.length === 0 && ops.invalid.length === 0) {
    ctx.addIssue({ code: "custom", path: ["query"], message: "query must contain search terms besides -site: operators" });
  }
});

const none = { addIssue: () => {} } as unknown as Ctx;

/** The validated parameters as the executed SearchQuery (rule 1 resolved, site: operators merged). */
export function toSearchRequest(q: Raw): SearchRequest {
  const ops = parseSiteOperators(q.query);
  const locale = resolveLocale(
    q.location === undefined ? undefined : (normaliseLocation(q.location) ?? undefined),
    q.language === undefined ? undefined : (normaliseLanguage(q.language) ?? undefined),
  );
  const search: SearchQuery = {
    text: ops.text,
    ...locale,
    includeDomains: unique([...parseDomains(q.include_domains, "include_domains", none), ...ops.include]),
    excludeDomains: unique([...parseDomains(q.exclude_domains, "exclude_domains", none), ...ops.exclude]),
    domainType: q.domain_type,
    page: q.page ?? 0,
    ...(q.recency_minutes !== undefined ? { recencyMinutes: q.recency_minutes } : {}),
    ...(q.after_date !== undefined ? { afterDate: q.after_date } : {}),
    ...(q.before_date !== undefined ? { beforeDate: q.before_date } : {}),
    ...(q.pub_year_min !== undefined ? { pubYearMin: q.pub_year_min } : {}),
    ...(q.pub_year_max !== undefined ? { pubYearMax: q.pub_year_max } : {}),
  };
  return { search, ...(q.purpose !== undefined ? { purpose: q.purpose } : {}) };
}

export const SearchResultSchema = z
  .object({
    position: z.number().int().min(1).openapi({ description: "1-indexed across pages: page N starts at N×10+1." }),
    site_name: z.string().openapi({ description: "Domain of the result." }),
    title: z.string(),
    snippet: z.string(),
    url: z.string(),
    date: z.string().optional().openapi({ description: "YYYY-MM-DD; news results and some web results." }),
    publisher: z.string().optional().openapi({ description: "domain_type=news only." }),
    authors: z.array(z.string()).optional().openapi({ description: "domain_type=research_paper only." }),
    venue: z.string().optional().openapi({ description: "domain_type=research_paper only." }),
    year: z.number().int().optional().openapi({ description: "domain_type=research_paper only." }),
    cited_by_count: z.number().int().optional().openapi({ description: "domain_type=research_paper only." }),
    pdf_url: z.string().optional().openapi({ description: "domain_type=research_paper only, when a PDF exists." }),
  })
  .openapi("SearchResult");

export const SearchResponseSchema = z
  .object({
    query: z.string().openapi({ description: "The executed query: the query text without site:/-site: operators." }),
    results: z.array(SearchResultSchema),
    total_results: z.number().int().min(0).openapi({ description: "The number of results returned on this page." }),
    page: z.number().int().min(0).max(MAX_PAGE),
  })
  .openapi("SearchResponse");

export type SearchResponse = z.infer<typeof SearchResponseSchema>;
export type SearchResultWire = z.infer<typeof SearchResultSchema>;

export const SearchUsageQuery = PaginationQuery.extend({
  status: z
    .enum(["completed", "failed"])
    .optional()
    .openapi({ ...param("status"), description: "completed (a 2xx answer) or failed (any other status)." }),
  created_after: timestampParam("created_after", "Only requests made after this time (exclusive)."),
  created_before: timestampParam("created_before", "Only requests made before this time (exclusive)."),
})
  .strict()
  .refine((q) => !q.created_after || !q.created_before || q.created_after < q.created_before, {
    message: "created_after must be earlier than created_before",
    path: ["created_after"],
  });

export const SearchUsageItemSchema = z
  .object({
    id: z.number().int(),
    request_id: z.string(),
    query: z
      .string()
      .openapi({ description: "The executed query (the raw query parameter for requests that failed validation)." }),
    status_code: z.number().int(),
    result_count: z.number().int().min(0),
    results: z.array(SearchResultSchema.pick({ position: true, site_name: true, snippet: true, title: true, url: true })),
    cached: z.boolean().nullable().openapi({
      description:
        "true when the upstreams' results came from the short-lived cache (the local index is always asked), false when every provider was asked; null for failed requests.",
    }),
    response_size_bytes: z.number().int().min(0),
    created_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("SearchUsageItem");
