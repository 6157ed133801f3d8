import type { PdfExtraction } from "../extract/pdf.ts";
import { toIndexDocument } from "../search/index-feed.ts";
import { publicByEverySign } from "../search/page-visibility.ts";
import type { ContentKind } from "./content-kind.ts";
import type { FetchDeps } from "./fetch-deps.ts";
import type { FetchRequest } from "./fetch-request.schema.ts";
import { type Source, storeSource } from "./fetch-source.ts";
import { textAsFormat } from "./text-content.ts";
import {
  cacheState,
  extractionFailure,
  fail,
  MAX_BODY_BYTES,
  MAX_PDF_PAGES,
  type UrlOutcome,
  type UrlSuccess,
} from "./url-outcome.ts";

/**
 * A response that is not HTML (spec 4.6 "Supported content"): PDF text and metadata, JSON as raw
 * text, plain text and CSV; images and other binaries have no extractable content. Selectors on a
 * direct PDF or CSV download fail with selector_unsupported (rule 8).
 */
export async function fromDocument(
  deps: FetchDeps,
  url: string,
  key: string,
  source: Source,
  kind: Exclude<ContentKind, "html">,
  req: FetchRequest,
  ctx: { selectors: boolean; validators: Pick<UrlSuccess, "etag" | "lastModified"> },
): Promise<UrlOutcome> {
  const { finalUrl } = source;
  const contentType = source.headers["content-type"];
  if (source.status < 200 || source.status > 299) return fail(url, finalUrl, "target_http_error", { status: source.status });
  if ((kind === "pdf" || kind === "csv") && ctx.selectors) return fail(url, finalUrl, "selector_unsupported");
  if (kind === "binary")
    return fail(url, finalUrl, "empty_content", {
      message: `Content of type ${contentType ?? "unknown"} has no extractable text.`,
    });

  let text: string;
  let meta = { title: null as string | null, author: null as string | null, publishedDate: null as string | null };
  if (kind === "pdf") {
    if (source.truncated)
      return fail(url, finalUrl, "empty_content", { message: `The PDF is larger than ${MAX_BODY_BYTES} bytes.` });
    let pdf: PdfExtraction;
    try {
      pdf = await deps.extractor.pdf(new Uint8Array(source.body), { maxPages: MAX_PDF_PAGES, maxBytes: MAX_BODY_BYTES });
    } catch (err) {
      return extractionFailure(url, finalUrl, err);
    }
    if (!pdf.ok) return fail(url, finalUrl, "empty_content", { message: pdf.detail });
    text = pdf.text;
    meta = { title: pdf.title, author: pdf.author, publishedDate: pdf.publishedDate };
  } else {
    text = deps.decodeHtml(source.body, contentType);
  }
  if (source.live) await storeSource(deps, key, source);
  if (text.trim() === "") return fail(url, finalUrl, "empty_content");
  // PDFs and plain text are documents worth finding; JSON and CSV are data, not indexed.
  const indexDoc =
    deps.index && (kind === "pdf" || kind === "text")
      ? toIndexDocument({ finalUrl, metadata: { ...meta, language: null }, text })
      : null;
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
    ...ctx.validators,
    ...cacheState(source),
    ...(indexDoc ? { indexDoc, indexPublic: publicByEverySign({ ...source, requestedUrl: url }) } : {}),
  };
}
