import type { RouteHandler } from "@hono/zod-openapi";
import { findInvalidSelectors } from "../../extract/output/selectors.ts";
import type { FetchService, TimedOutcome } from "../../fetch/fetch.service.ts";
import type { FetchUsageRecord, FetchUsageService } from "../../fetch/fetch-usage.service.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { AppError } from "../../lib/app-error.ts";
import { type RateLimitService, rateLimitHeaders } from "../../services/rate-limit.service.ts";
import type { fetchRoute, fetchUsageRoute } from "./fetch.routes.ts";

const ORIGIN = /^[a-z0-9][a-z0-9._-]{0,31}$/;

function resultToWire(t: TimedOutcome, format: "markdown" | "html" | "json") {
  const o = t.outcome;
  if (!o.ok) return null;
  return {
    url: o.url,
    final_url: o.finalUrl,
    title: o.title,
    description: o.description,
    language: o.language,
    author: o.author,
    published_date: o.publishedDate,
    text: o.text,
    ...(o.links ? { links: o.links } : {}),
    ...(o.imageLinks ? { image_links: o.imageLinks } : {}),
    ...(o.notModified ? { not_modified: true as const } : {}),
    ...(o.etag ? { etag: o.etag } : {}),
    ...(o.lastModified ? { last_modified: o.lastModified } : {}),
    ...(o.unmatchedSelectors ? { unmatched_selectors: o.unmatchedSelectors } : {}),
    cached: o.cached,
    cached_at: o.cachedAt ?? null,
    latency_ms: t.latencyMs,
    format,
  };
}

function errorToWire(t: TimedOutcome) {
  const o = t.outcome;
  if (o.ok) return null;
  return {
    url: o.url,
    error: o.error,
    ...(o.status !== undefined && (o.error === "target_http_error" || o.error === "page_not_found") ? { status: o.status } : {}),
    ...(o.error === "selector_not_matched"
      ? { unmatched_selectors: o.unmatchedSelectors ?? [], candidate_selectors: (o.candidateSelectors ?? []).slice(0, 10) }
      : {}),
    ...(o.message ? { message: o.message } : {}),
  };
}

export function usageToWire(r: FetchUsageRecord) {
  return {
    id: r.id,
    url: r.url,
    final_url: r.finalUrl,
    title: r.title,
    description: r.description,
    language: r.language,
    author: r.author,
    published_date: r.publishedDate,
    format: r.format,
    status: r.status,
    request_origin: r.requestOrigin,
    request_id: r.requestId,
    text_length: r.textLength,
    links_count: r.linksCount,
    image_links_count: r.imageLinksCount,
    latency_ms: r.latencyMs,
    ...(r.notModified ? { not_modified: true as const } : {}),
    ...(r.etag ? { etag: r.etag } : {}),
    ...(r.lastModified ? { last_modified: r.lastModified } : {}),
    created_at: r.createdAt.toISOString(),
    error: r.error,
  };
}

export function fetchHandlers(deps: { fetch: FetchService; usage: FetchUsageService; rateLimits: RateLimitService }) {
  const fetch: RouteHandler<typeof fetchRoute, AppEnv> = async (c) => {
    const req = c.req.valid("json");
    // Spec 4.6 rule 6: a selector that is not valid CSS fails the request, before any fetching.
    const invalid = findInvalidSelectors([...(req.include_selectors ?? []), ...(req.exclude_selectors ?? [])]);
    if (invalid.length > 0) {
      throw new AppError("INVALID_INPUT", `Invalid CSS selector syntax: ${invalid.map((s) => JSON.stringify(s)).join(", ")}.`, {
        status: 422,
      });
    }
    const auth = c.get("auth");
    const decision = await deps.rateLimits.consume(auth, "fetch", req.urls.length);
    const header = c.req.header("x-request-origin")?.trim().toLowerCase();
    const requestOrigin = auth.scope === "mcp" ? "mcp" : header && ORIGIN.test(header) ? header : "api";
    const outcomes = await deps.fetch.fetch(req, { auth, requestId: c.get("requestId"), requestOrigin });
    const results = outcomes.map((t) => resultToWire(t, req.format)).filter((r) => r !== null);
    const errors = outcomes.map(errorToWire).filter((e) => e !== null);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
    return c.json({ results, errors, ...(errors.length > 0 ? { request_id: c.get("requestId") } : {}) }, 200);
  };

  const usage: RouteHandler<typeof fetchUsageRoute, AppEnv> = async (c) => {
    const q = c.req.valid("query");
    const page = await deps.usage.list(c.get("auth").account.id, q);
    return c.json({ ...page, items: page.items.map(usageToWire) }, 200);
  };

  return { fetch, usage };
}
