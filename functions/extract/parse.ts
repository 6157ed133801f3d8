import { parseHTML } from "linkedom";

/**
 * Parses an HTML string into a DOM document (linkedom: no layout, no scripts, fast).
 * Fragments without <html>/<body> are wrapped so that `document.body` always exists. When content
 * precedes a late <body> tag, linkedom leaves it under <html> and loses track of the body's
 * children; such pages are parsed again with one body around everything after </head>.
 */
export function parseDocument(html: string): Document {
  const head = html.slice(0, 65536);
  const source =
    /<html[\s>]/i.test(head) || /<body[\s>]/i.test(head) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const doc = parseHTML(source).document as unknown as Document;
  if (!hasStrays(doc)) return doc;
  const headEnd = source.search(/<\/head\s*>/i);
  const start = headEnd < 0 ? 0 : headEnd + source.slice(headEnd).indexOf(">") + 1;
  const rest = source.slice(start).replace(/<\/?(?:body|html)(?:\s[^>]*)?>/gi, "");
  const bodyAttrs = source.match(/<body(\s[^>]*)?>/i)?.[1] ?? "";
  return parseHTML(`${source.slice(0, start)}<body${bodyAttrs}>${rest}</body></html>`).document as unknown as Document;
}

function hasStrays(doc: Document): boolean {
  const root = doc.documentElement;
  if (!root) return false;
  for (let c = root.firstElementChild; c; c = c.nextElementSibling)
    if (c.localName !== "head" && c.localName !== "body") return true;
  return false;
}
