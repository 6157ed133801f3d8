import { cacheKey } from "./cache-policy.ts";
import { contentKind } from "./content-kind.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import { fromDocument } from "./fetch-document.ts";
import { fromHtml } from "./fetch-html.ts";
import type { FetchRequest } from "./fetch-request.schema.ts";
import { acquireSource } from "./fetch-source.ts";
import type { DocTree } from "./ports.ts";
import { fail, MESSAGES, type UrlOutcome, type UrlSuccess } from "./url-outcome.ts";

export { MAX_BODY_BYTES, MESSAGES, type UrlFailure, type UrlOutcome, type UrlSuccess } from "./url-outcome.ts";

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
  const source = await acquireSource(deps, url, { key, hostname: checked.url.hostname }, req, signal);
  if ("error" in source) return source;

  const validators: Pick<UrlSuccess, "etag" | "lastModified"> = req.include_etag_and_last_modified
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
      cached: false,
      ...validators,
    };
  }
  if (source.status === 404 || source.status === 410) return fail(url, finalUrl, "page_not_found", { status: source.status });

  const kind = contentKind(source.headers["content-type"], source.body, finalUrl);
  if (kind === "html") return fromHtml(deps, url, key, source, req, { signal, deadlineAt, conditional, validators });
  const selectors = req.include_selectors !== undefined || req.exclude_selectors !== undefined;
  return fromDocument(deps, url, key, source, kind, req, { selectors, validators });
}
