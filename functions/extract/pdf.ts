import type { getDocumentProxy } from "unpdf";

/**
 * PDF.js is most of an edge fetch bundle's weight (about 1.6 MB minified); it is loaded on the first
 * PDF, so a process (or a Lambda's cold start) that never meets one never parses it.
 */
const loadUnpdf = () => import("unpdf");

/**
 * Text and metadata of a PDF, through unpdf (PDF.js built for servers, no worker, no canvas).
 *
 * Failures are values (STYLE.md habit 6): a PDF that is encrypted, corrupt, over the size cap or
 * has no text layer (a scan) gives `empty_content`, the spec's error for "no extractable content".
 */

/** Pages read at most; the rest is reported as `truncated`. */
export const DEFAULT_MAX_PDF_PAGES = 200;
/** Largest PDF parsed (bytes). The fetcher's own body cap is usually lower. */
export const DEFAULT_MAX_PDF_BYTES = 32 * 1024 * 1024;
/** Text kept at most (characters), whatever the page count: a bound on memory and response size. */
const MAX_TEXT_CHARS = 5_000_000;

export interface PdfOptions {
  /** Default `DEFAULT_MAX_PDF_PAGES`. */
  maxPages?: number;
  /** Default `DEFAULT_MAX_PDF_BYTES`. */
  maxBytes?: number;
}

export type PdfExtraction =
  | {
      ok: true;
      title: string | null;
      author: string | null;
      /** ISO 8601, from the Info dictionary's CreationDate (or XMP's create date). */
      publishedDate: string | null;
      /** Text of each page, pages separated by a blank line. */
      text: string;
      /** Pages in the document (not only those read). */
      pages: number;
      /** True when pages or text were left out because of the caps. */
      truncated: boolean;
    }
  | { ok: false; error: "empty_content"; detail: string };

const empty = (detail: string): PdfExtraction => ({ ok: false, error: "empty_content", detail });

interface TextItemLike {
  str?: string;
  hasEOL?: boolean;
}

/** One page's text: items joined, line breaks where PDF.js saw them, whitespace tidied. */
function pageText(items: readonly unknown[]): string {
  let out = "";
  for (const item of items as TextItemLike[]) {
    if (typeof item.str !== "string") continue; // marked-content markers carry no text
    out += item.str;
    if (item.hasEOL) out += "\n";
  }
  return out
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const cleanString = (v: unknown): string | null => {
  if (typeof v !== "string") return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: PDF strings often carry NULs and control bytes
  const s = v.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return s === "" ? null : s;
};

async function isoDate(raw: unknown): Promise<string | null> {
  if (typeof raw !== "string" || raw.trim() === "") return null;
  const { PDFDateString } = await (await loadUnpdf()).getResolvedPDFJS();
  const fromPdf = PDFDateString.toDateObject(raw);
  const date = fromPdf ?? new Date(raw); // XMP dates are already ISO 8601
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

interface XmpLike {
  get(name: string): unknown;
}

const xmp = (metadata: unknown, name: string): unknown => {
  if (!metadata || typeof (metadata as XmpLike).get !== "function") return undefined;
  const v = (metadata as XmpLike).get(name);
  return Array.isArray(v) ? v.join(", ") : v;
};

const describe = (err: unknown): string => {
  const name = err instanceof Error ? err.name : "";
  if (name === "PasswordException") return "the PDF is encrypted with a password";
  if (name === "InvalidPDFException") return "the file is not a valid PDF";
  return `the PDF could not be read: ${err instanceof Error ? err.message : String(err)}`;
};

export async function extractPdf(bytes: Uint8Array, opts: PdfOptions = {}): Promise<PdfExtraction> {
  const maxPages = Math.max(1, Math.floor(opts.maxPages ?? DEFAULT_MAX_PDF_PAGES));
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_PDF_BYTES;
  if (bytes.byteLength === 0) return empty("the PDF is empty");
  if (bytes.byteLength > maxBytes) return empty(`the PDF is larger than ${maxBytes} bytes`);

  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: PDF.js may take over (detach) the buffer it is given, and the caller keeps its bytes.
    doc = await (await loadUnpdf()).getDocumentProxy(new Uint8Array(bytes), {
      stopAtErrors: false,
      enableXfa: false,
      verbosity: 0,
    });
  } catch (err) {
    return empty(describe(err));
  }
  try {
    const pages = doc.numPages;
    const readPages = Math.min(pages, maxPages);
    let truncated = readPages < pages;
    const texts: string[] = [];
    let chars = 0;
    for (let n = 1; n <= readPages; n++) {
      const page = await doc.getPage(n);
      try {
        const text = pageText((await page.getTextContent()).items);
        if (text === "") continue;
        if (chars + text.length > MAX_TEXT_CHARS) {
          texts.push(text.slice(0, Math.max(0, MAX_TEXT_CHARS - chars)));
          truncated = true;
          break;
        }
        texts.push(text);
        chars += text.length + 2;
      } finally {
        page.cleanup();
      }
    }
    if (texts.length === 0) return empty(`the PDF has no text layer (${pages} page${pages === 1 ? "" : "s"}, none with text)`);

    const meta = await doc.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as Record<string, unknown>;
    const xmpData = meta?.metadata;
    return {
      ok: true,
      title: cleanString(info.Title) ?? cleanString(xmp(xmpData, "dc:title")),
      author: cleanString(info.Author) ?? cleanString(xmp(xmpData, "dc:creator")),
      publishedDate: (await isoDate(info.CreationDate)) ?? (await isoDate(xmp(xmpData, "xmp:createdate"))),
      text: texts.join("\n\n"),
      pages,
      truncated,
    };
  } catch (err) {
    return empty(describe(err));
  } finally {
    await doc.loadingTask.destroy();
  }
}
