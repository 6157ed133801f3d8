/**
 * Decodes an HTML (or text) body the way browsers pick its encoding: byte-order mark first, then
 * the Content-Type charset, then a `<meta charset>` / `<meta http-equiv="content-type">` in the
 * first 4 KiB (the HTML prescan window is 1024 bytes; 4 KiB is more forgiving), else UTF-8.
 * Labels go through TextDecoder (Node's full ICU): `latin1` means windows-1252, `gb2312` means
 * GBK, `x-sjis` means Shift_JIS, exactly as the WHATWG Encoding standard maps them.
 */

const PRESCAN_BYTES = 4096;

/** The encoding's canonical name when TextDecoder knows the label, else null. */
export function normaliseCharset(label: string | undefined | null): string | null {
  if (!label) return null;
  const cleaned = label.trim().replace(/^["']|["']$/g, "");
  if (cleaned === "") return null;
  try {
    return new TextDecoder(cleaned).encoding;
  } catch {
    return null;
  }
}

function bomEncoding(body: Buffer): { encoding: string; length: number } | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: "utf-8", length: 3 };
  if (body[0] === 0xff && body[1] === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (body[0] === 0xfe && body[1] === 0xff) return { encoding: "utf-16be", length: 2 };
  return null;
}

/** The charset parameter of a Content-Type value. */
export function charsetFromContentType(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const match = /;\s*charset\s*=\s*("[^"]*"|'[^']*'|[^;\s]*)/i.exec(contentType);
  return match?.[1] ? match[1].replace(/^["']|["']$/g, "") : null;
}

const META_TAG = /<meta\b[^>]*>/gi;
const ATTRIBUTE = /([a-z-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)/gi;

/** The charset a `<meta>` in the first PRESCAN_BYTES declares, if any. */
export function charsetFromMeta(body: Buffer): string | null {
  // latin1 maps bytes 1:1, so ASCII markup reads the same whatever the real encoding is.
  const head = body.subarray(0, PRESCAN_BYTES).toString("latin1");
  for (const tag of head.matchAll(META_TAG)) {
    const attrs = new Map<string, string>();
    for (const attr of tag[0].matchAll(ATTRIBUTE)) {
      const name = attr[1]?.toLowerCase();
      if (name && !attrs.has(name)) attrs.set(name, (attr[2] ?? "").replace(/^["']|["']$/g, ""));
    }
    const direct = attrs.get("charset");
    if (direct) return direct;
    if (attrs.get("http-equiv")?.toLowerCase() === "content-type") {
      const fromContent = /charset\s*=\s*["']?([^;"'\s]+)/i.exec(attrs.get("content") ?? "");
      if (fromContent?.[1]) return fromContent[1];
    }
  }
  return null;
}

/** The encoding `decodeHtml` will use for this body, and whether a BOM must be skipped. */
export function detectEncoding(body: Buffer, contentType: string | undefined): { encoding: string; bomLength: number } {
  const bom = bomEncoding(body);
  if (bom) return { encoding: bom.encoding, bomLength: bom.length };
  const fromHeader = normaliseCharset(charsetFromContentType(contentType));
  if (fromHeader) return { encoding: fromHeader, bomLength: 0 };
  const fromMeta = normaliseCharset(charsetFromMeta(body));
  // A meta tag read as ASCII cannot truthfully declare UTF-16 (HTML spec: treat it as UTF-8).
  if (fromMeta) return { encoding: fromMeta.startsWith("utf-16") ? "utf-8" : fromMeta, bomLength: 0 };
  return { encoding: "utf-8", bomLength: 0 };
}

export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  const { encoding, bomLength } = detectEncoding(body, contentType);
  // ignoreBOM: the BOM (if any) was already sliced off; a second one is content.
  return new TextDecoder(encoding, { ignoreBOM: true }).decode(body.subarray(bomLength));
}
