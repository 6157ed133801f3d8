import type { FetchErrorCode } from "../../schema/fetch-errors.ts";
import type { FetchRequest } from "../surfaces/fetch/fetch.schemas.ts";
import { isBotChallenge } from "./bot-challenge.ts";
import { cacheKey, isAcceptable, originMaxAge, storableHeaders } from "./cache-policy.ts";
import { contentKind } from "./content-kind.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import { needsRendering } from "./needs-render.ts";
import type { DocTree } from "./ports.ts";
import { textAsFormat } from "./text-content.ts";

/** Largest response body read from an origin (decoded), documented in the OpenAPI description. */
export const MAX_BODY_BYTES = 15 * 1024 * 1024;
export const MAX_PDF_PAGES = 300;

/**
 * Fixed explanations: the policy's and the network's own details can name internal addresses
 * (what a private name resolved to), so they go to the debug log, never to the caller.
 */
export const MESSAGES = {
  invalid_url: "Only public http(s) addresses can be fetched; this URL's host is private, reserved or not allowed.",
  invalid_redirect_url: "The page redirected to an address that is private, reserved or not allowed.",
  target_unreachable: "The site could not be reached (DNS, connection, TLS or a broken response).",
  timeout: "The page did not finish within the deadline.",
} as const;

export interface UrlSuccess {
  ok: true;
  url: string;
  finalUrl: string;
  title: string | null;
  description: string | null;
  language: string | null;
  author: string | null;
  publishedDate: string | null;
  text: string | DocTree;
  textLength: number;
  links?: string[];
  imageLinks?: string[];
  notModified?: true;
  etag?: string;
  lastModified?: string;
  unmatchedSelectors?: string[];
}

export interface UrlFailure {
  ok: false;
  url: string;
  finalUrl: string;
  error: FetchErrorCode;
  status?: number;
  message?: string;
  unmatchedSelectors?: string[];
  candidateSelectors?: string[];
}

export type UrlOutcome = UrlSuccess | UrlFailure;

interface Source {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  finalUrl: string;
  rendered: boolean;
  live: boolean;
  truncated: boolean;
}

const fail = (url: string, finalUrl: string, error: FetchErrorCode, extra: Partial<UrlFailure> = {}): UrlFailure => ({
  ok: false,
  url,
  finalUrl,
  error,
  ...extra,
});

/** One URL of a fetch request, start to finish. Per-URL failures are values (STYLE habit 6). */
export async function fetchUrl(
  deps: FetchDeps,
  url: string,
  req: FetchRequest,
  signal: AbortSignal,
  deadlineAt: number,
): Promise<UrlOutcome> {
  const checked = deps.checkUrl(url);
  if (!checked.ok) return fail(url, url, "invalid_url", { message: MESSAGES.invalid_url });
  const conditional = req.if_none_match !== undefined || req.if_modified_since !== undefined;
  const key = cacheKey(checked.url);
  const selectors = req.include_selectors !== undefined || req.exclude_selectors !== undefined;

  let source: Source | null = null;
  if (!conditional && !req.include_etag_and_last_modified) {
    const entry = await deps.cache.get(key);
    const pinned = deps.neverExpireHosts.includes(checked.url.hostname.toLowerCase());
    if (entry && isAcceptable(entry, req.ttl, pinned, deps.clock.now())) {
      source = { ...entry, live: false, truncated: false };
    }
  }
  if (!source) {
    const headers: Record<string, string> = {};
    if (req.if_none_match !== undefined) headers["if-none-match"] = req.if_none_match;
    if (req.if_modified_since !== undefined) headers["if-modified-since"] = req.if_modified_since;
    const res = await deps.http(url, { headers, signal, maxBodyBytes: MAX_BODY_BYTES });
    if (!res.ok) {
      deps.logger.debug("fetch failed", { url, error: res.error, detail: res.detail });
      return fail(url, url, res.error, { message: MESSAGES[res.error] });
    }
    source = { ...res, rendered: false, live: true };
  }

  const validators = (): Pick<UrlSuccess, "etag" | "lastModified"> =>
    req.include_etag_and_last_modified && source
      ? {
          ...(source.headers.etag ? { etag: source.headers.etag } : {}),
          ...(source.headers["last-modified"] ? { lastModified: source.headers["last-modified"] } : {}),
        }
      : {};
  const { finalUrl } = source;

  if (source.status === 304 && conditional) {
    return {
      ok: true,
      url,
      finalUrl,
      title: null,
      description: null,
      language: null,
      author: null,
      publishedDate: null,
      text: req.format === "json" ? ({ type: "document", children: [] } as DocTree) : "",
      textLength: 0,
      notModified: true,
      ...validators(),
    };
  }
  if (source.status === 404 || source.status === 410) return fail(url, finalUrl, "page_not_found", { status: source.status });

  const contentType = source.headers["content-type"];
  const kind = contentKind(contentType, source.body, finalUrl);
  if (kind === "html") {
    let html = deps.decodeHtml(source.body, contentType);
    if (isBotChallenge(source.status, source.headers, html)) return fail(url, finalUrl, "bot_blocked");
    if (source.status < 200 || source.status > 299) return fail(url, finalUrl, "target_http_error", { status: source.status });
    let rendered = source.rendered;
    if (!rendered && needsRendering(html, contentType)) {
      if (conditional) return fail(url, finalUrl, "conditional_unsupported");
      const r = await deps.renderer.render({
        url: finalUrl,
        timeoutMs: Math.max(1, deadlineAt - Date.now()),
        signal,
        isAllowed: deps.isAllowed,
      });
      if (!r.ok) {
        if (r.error !== "render_unavailable") {
          deps.logger.debug("render failed", { url, error: r.error, detail: r.detail });
          return fail(url, finalUrl, r.error, { message: MESSAGES[r.error] });
        }
        // No browser here: extract what the server sent; an empty shell becomes empty_content below.
      } else {
        html = r.html;
        rendered = true;
        if (source.live)
          await store(deps, key, {
            ...source,
            body: Buffer.from(html, "utf8"),
            finalUrl: r.finalUrl,
            rendered: true,
            headers: { ...source.headers, "content-type": "text/html; charset=utf-8" },
          });
      }
    }
    if (source.live && !rendered) await store(deps, key, source);
    const outcome = await deps.extractor.extract(html, {
      url: finalUrl,
      format: req.format,
      links: req.links,
      imageLinks: req.image_links,
      includeSelectors: req.include_selectors,
      excludeSelectors: req.exclude_selectors,
    });
    if (!outcome.ok) {
      if (outcome.error === "selector_not_matched") {
        return fail(url, finalUrl, "selector_not_matched", {
          unmatchedSelectors: outcome.unmatchedSelectors,
          candidateSelectors: outcome.candidateSelectors,
        });
      }
      const message =
        !rendered && needsRendering(html, contentType) && !deps.renderer.available
          ? "This page needs JavaScript to show its content and no browser is available on this server."
          : undefined;
      return fail(url, finalUrl, "empty_content", message ? { message } : {});
    }
    const p = outcome.page;
    return {
      ok: true,
      url,
      finalUrl,
      title: p.title,
      description: p.description,
      language: p.language,
      author: p.author,
      publishedDate: p.publishedDate,
      text: p.text,
      textLength: p.textLength,
      ...(req.links ? { links: p.links ?? [] } : {}),
      ...(req.image_links ? { imageLinks: p.imageLinks ?? [] } : {}),
      ...(p.unmatchedSelectors?.length ? { unmatchedSelectors: p.unmatchedSelectors } : {}),
      ...validators(),
    };
  }

  if (source.status < 200 || source.status > 299) return fail(url, finalUrl, "target_http_error", { status: source.status });
  if ((kind === "pdf" || kind === "csv") && selectors) return fail(url, finalUrl, "selector_unsupported");
  if (kind === "binary")
    return fail(url, finalUrl, "empty_content", {
      message: `Content of type ${contentType ?? "unknown"} has no extractable text.`,
    });

  let text: string;
  let meta = { title: null as string | null, author: null as string | null, publishedDate: null as string | null };
  if (kind === "pdf") {
    if (source.truncated)
      return fail(url, finalUrl, "empty_content", { message: `The PDF is larger than ${MAX_BODY_BYTES} bytes.` });
    const pdf = await deps.pdf(new Uint8Array(source.body), { maxPages: MAX_PDF_PAGES, maxBytes: MAX_BODY_BYTES });
    if (!pdf.ok) return fail(url, finalUrl, "empty_content", { message: pdf.detail });
    text = pdf.text;
    meta = { title: pdf.title, author: pdf.author, publishedDate: pdf.publishedDate };
  } else {
    text = deps.decodeHtml(source.body, contentType);
  }
  if (source.live) await store(deps, key, source);
  if (text.trim() === "") return fail(url, finalUrl, "empty_content");
  return {
    ok: true,
    url,
    finalUrl,
    ...meta,
    description: null,
    language: null,
    text: textAsFormat(text, req.format, kind),
    textLength: text.length,
    ...(req.links ? { links: [] } : {}),
    ...(req.image_links ? { imageLinks: [] } : {}),
    ...validators(),
  };
}

/** Caches a complete 2xx response (never a truncated one, never validators). */
async function store(deps: FetchDeps, urlKey: string, s: Source): Promise<void> {
  if (s.truncated || s.status < 200 || s.status > 299) return;
  const fetchedAt = deps.clock.now();
  try {
    await deps.cache.put({
      urlKey,
      finalUrl: s.finalUrl,
      status: s.status,
      headers: storableHeaders(s.headers),
      body: s.body,
      rendered: s.rendered,
      fetchedAt,
      originMaxAge: originMaxAge(s.headers, fetchedAt),
    });
  } catch (err) {
    // The cache is an optimisation: a failed write must not fail the URL.
    deps.logger.warn("fetch cache write failed", { url: urlKey, error: err });
  }
}
