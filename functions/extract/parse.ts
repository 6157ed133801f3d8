import { parseHTML } from "linkedom";

/**
 * Parses an HTML string into a DOM document (linkedom: no layout, no scripts, fast).
 * Fragments without <html>/<body> are wrapped so that `document.body` always exists. linkedom
 * mis-nests pages with content before <head> or between </head> and a late <body> (it leaves
 * elements under <html> and `document.body` points at an empty element), and gives an empty
 * document for pages with markup before the doctype (a stray <script> or <style> first); such
 * pages are parsed again from a normalised skeleton: head content in <head>, everything else in
 * one <body>.
 */
export function parseDocument(html: string): Document {
  const start = html.slice(0, 65536);
  const source =
    /<html[\s>]/i.test(start) || /<body[\s>]/i.test(start)
      ? html
      : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const doc = parseHTML(source).document as unknown as Document;
  return isWellFormed(doc) ? doc : (parseHTML(normalise(source)).document as unknown as Document);
}

function isWellFormed(doc: Document): boolean {
  const root = doc.documentElement;
  if (!root) return true;
  // Nothing at all under <html>: the parser gave up (content before the doctype).
  if (!root.firstElementChild) return false;
  let bodies = 0;
  for (let c: Element | null = root.firstElementChild; c; c = c.nextElementSibling) {
    if (c.localName === "body") {
      if (c !== doc.body) return false;
      bodies++;
    } else if (c.localName !== "head") return false;
  }
  return bodies <= 1;
}

function normalise(source: string): string {
  const headOpen = source.match(/<head(?:\s[^>]*)?>/i);
  const headClose = source.search(/<\/head\s*>/i);
  const htmlAttrs = source.match(/<html(\s[^>]*)?>/i)?.[1] ?? "";
  const bodyAttrs = source.match(/<body(\s[^>]*)?>/i)?.[1] ?? "";
  const strip = (s: string) => s.replace(/<\/?(?:body|html|head)(?:\s[^>]*)?>/gi, "").replace(/<!doctype[^>]*>/gi, "");
  let head = "";
  let rest = source;
  if (headOpen?.index !== undefined && headClose > headOpen.index) {
    const before = source.slice(0, headOpen.index);
    head = source.slice(headOpen.index + headOpen[0].length, headClose);
    // Whatever preceded <head> (stray scripts, sometimes markup) goes to the top of the body.
    rest = `${before}${source.slice(headClose).replace(/^<\/head\s*>/i, "")}`;
  }
  return `<!doctype html><html${htmlAttrs}><head>${strip(head)}</head><body${bodyAttrs}>${strip(rest)}</body></html>`;
}
