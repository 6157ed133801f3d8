import type { ExtractOutcome } from "../extract/types.ts";
import { toIndexDocument } from "../search/index-feed.ts";
import { publicByEverySign } from "../search/page-visibility.ts";
import { isBotChallenge } from "./bot-challenge.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import type { FetchRequest } from "./fetch-request.schema.ts";
import { type Source, storeSource } from "./fetch-source.ts";
import { needsRendering, runsScripts } from "./needs-render.ts";
import type { RenderError } from "./renderer.ts";
import {
  cacheState,
  extractionFailure,
  fail,
  MAX_BODY_BYTES,
  MESSAGES,
  type UrlOutcome,
  type UrlSuccess,
} from "./url-outcome.ts";

/**
 * An HTML response: bot challenges, status, rendering in Chromium when the page needs scripts
 * (never for conditional requests: spec 7.4 conditional_unsupported), then extraction.
 */
export async function fromHtml(
  deps: FetchDeps,
  url: string,
  key: string,
  source: Source,
  req: FetchRequest,
  ctx: { signal: AbortSignal; deadlineAt: number; conditional: boolean; validators: Pick<UrlSuccess, "etag" | "lastModified"> },
): Promise<UrlOutcome> {
  const { finalUrl } = source;
  const contentType = source.headers["content-type"];
  let html = deps.decodeHtml(source.body, contentType);
  if (isBotChallenge(source.status, source.headers, html)) return fail(url, finalUrl, "bot_blocked");
  if (source.status < 200 || source.status > 299) return fail(url, finalUrl, "target_http_error", { status: source.status });
  let rendered = source.rendered;
  if (!rendered && needsRendering(html, contentType)) {
    if (ctx.conditional) return fail(url, finalUrl, "conditional_unsupported");
    const r = await render(deps, key, source, ctx);
    if (r && "error" in r) return fail(url, finalUrl, r.error, { message: MESSAGES[r.error] });
    // null: no browser here; extract what the server sent (an empty shell becomes empty_content below).
    if (r) ({ html, rendered } = { html: r.html, rendered: true });
  }
  if (source.live && !rendered) await storeSource(deps, key, source);
  let outcome: ExtractOutcome;
  try {
    outcome = await extractPage(deps, html, finalUrl, req);
  } catch (err) {
    return extractionFailure(url, finalUrl, err);
  }
  // A page whose markup holds no main content but runs scripts (an app shell the markup checks did
  // not recognise: a mount point with a different name, the site's header and footer around it) is
  // rendered and read once more, as a browser would show it. Not for a conditional request (spec 7.4)
  // nor a page without scripts (a browser would show the same), nor one too large to read (its
  // message says so). A failed render keeps empty_content.
  const shell = !outcome.ok && outcome.error === "empty_content" && !outcome.message;
  if (shell && !rendered && !ctx.conditional && deps.renderer.available && runsScripts(html, contentType)) {
    const r = await render(deps, key, source, ctx);
    if (r && !("error" in r)) {
      ({ html, rendered } = { html: r.html, rendered: true });
      try {
        outcome = await extractPage(deps, html, finalUrl, req);
      } catch (err) {
        return extractionFailure(url, finalUrl, err);
      }
    }
  }
  if (!outcome.ok) {
    if (outcome.error === "timeout") return fail(url, finalUrl, "timeout", { message: outcome.message });
    if (outcome.error === "selector_not_matched") {
      return fail(url, finalUrl, "selector_not_matched", {
        unmatchedSelectors: outcome.unmatchedSelectors,
        candidateSelectors: outcome.candidateSelectors,
      });
    }
    const message =
      outcome.message ??
      (!rendered && needsRendering(html, contentType) && !deps.renderer.available
        ? "This page needs JavaScript to show its content and no browser is available on this server."
        : undefined);
    return fail(url, finalUrl, "empty_content", message ? { message } : {});
  }
  const p = outcome.page;
  const indexDoc = p.index ? toIndexDocument({ finalUrl, metadata: p, text: p.index.plainText, typing: p.index.typing }) : null;
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
    ...ctx.validators,
    ...cacheState(source),
    ...(indexDoc ? { indexDoc, indexPublic: publicByEverySign({ ...source, requestedUrl: url, rendered }) } : {}),
  };
}

/**
 * Renders the page in Chromium: its DOM (held to an origin body's limit, and stored as the URL's
 * source when the fetch was live), null when this host has no browser, or the render's error.
 */
async function render(
  deps: FetchDeps,
  key: string,
  source: Source,
  ctx: { signal: AbortSignal; deadlineAt: number },
): Promise<{ html: string } | { error: Exclude<RenderError, "render_unavailable"> } | null> {
  const r = await deps.renderer.render({
    url: source.finalUrl,
    timeoutMs: Math.max(1, ctx.deadlineAt - Date.now()),
    signal: ctx.signal,
    isAllowed: deps.isAllowed,
  });
  if (!r.ok) {
    if (r.error === "render_unavailable") return null;
    deps.logger.debug("render failed", { url: source.finalUrl, error: r.error, detail: r.detail });
    return { error: r.error };
  }
  const html = r.html.length > MAX_BODY_BYTES ? r.html.slice(0, MAX_BODY_BYTES) : r.html;
  if (source.live)
    await storeSource(deps, key, {
      ...source,
      body: Buffer.from(html, "utf8"),
      finalUrl: r.finalUrl,
      rendered: true,
      headers: { ...source.headers, "content-type": "text/html; charset=utf-8" },
    });
  return { html };
}

function extractPage(deps: FetchDeps, html: string, finalUrl: string, req: FetchRequest) {
  return deps.extractor.extract(html, {
    url: finalUrl,
    format: req.format,
    links: req.links,
    imageLinks: req.image_links,
    includeSelectors: req.include_selectors,
    excludeSelectors: req.exclude_selectors,
    // A selector scope is not the page: only whole pages go to the local index.
    ...(deps.index && !req.include_selectors?.length && !req.exclude_selectors?.length ? { forIndex: true } : {}),
  });
}
