import { parseHTML } from "linkedom";
import "./unscripted-nodes.ts";
import "./class-attribute.ts";
import "./element-construction.ts";
import { elementSpans, removeTags } from "../lib/markup.ts";
import "./parser-stack.ts";
import { repairMojibake } from "./mojibake.ts";
import { capNesting } from "./nesting.ts";

/**
 * Parses an HTML string into a DOM document (linkedom: no layout, no scripts, fast).
 * Fragments without <html>/<body> are wrapped so that `document.body` always exists. linkedom
 * mis-nests pages with content before <head> or between </head> and a late <body> (it leaves
 * elements under <html> and `document.body` points at an empty element), and gives an empty
 * document for pages with markup before the doctype (a stray <script> or <style> first); such
 * pages are parsed again from a normalised skeleton: head content in <head>, everything else in
 * one <body>.
 *
 * A `<![CDATA[` in HTML content (outside SVG and MathML) is, for a browser, a bogus comment that
 * ends at the next `>`; the parser reads it as a comment up to `]]>`, so one stray marker (some
 * forum themes print an unclosed one after <body>) hides the rest of the page. The markers (and
 * `]]>`) outside scripts, styles and foreign elements are dropped before parsing and the text
 * between them kept: cutting to the next `>` as a browser does could cut into a real comment.
 * UTF-8 text stored as Latin-1 is decoded back first (mojibake.ts). Elements nest at most
 * MAX_DEPTH deep, as in a browser (nesting.ts).
 */
export function parseDocument(page: string): Document {
  const html = repairMojibake(page);
  const start = html.slice(0, 65536);
  const wrapped =
    /<html[\s>]/i.test(start) || /<body[\s>]/i.test(start)
      ? html
      : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const source = html.includes("<![CDATA[") ? dropHtmlCdata(wrapped) : wrapped;
  const parsed = parseHTML(source).document as unknown as Document;
  const doc = isWellFormed(parsed) ? parsed : (parseHTML(normalise(source)).document as unknown as Document);
  // Nested no deeper than a browser nests (nesting.ts).
  capNesting(doc);
  return doc;
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
  const strip = (s: string) => removeTags(s, PAGE_TAG);
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

/** Where a tag normalise() drops starts: <html>, <head>, <body> (open or close) and <!doctype>. */
const PAGE_TAG = /<(?:\/?(?:body|html|head)(?=[\s>])|!doctype)/gi;

/** Raw-text elements (their content is not markup) and the CDATA markers outside them. */
const RAW_OPEN = /<(script|style|textarea|svg|math)\b/gi;
const HTML_CDATA = /<!\[CDATA\[|\]\]>/g;

/** Drops the CDATA markers outside raw-text and foreign elements (each runs to its first closing tag). */
function dropHtmlCdata(source: string): string {
  let out = "";
  let last = 0;
  for (const [start, end] of elementSpans(source, RAW_OPEN, (name) => new RegExp(`</${name}\\s*>`, "gi"))) {
    out += source.slice(last, start).replace(HTML_CDATA, "") + source.slice(start, end);
    last = end;
  }
  return out + source.slice(last).replace(HTML_CDATA, "");
}
