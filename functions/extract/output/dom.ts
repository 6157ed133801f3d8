/// <reference lib="dom" />

import { SKIP_TAGS } from "./tags.ts";

// Shared helpers for the output converters. linkedom's own typings are thin, so the converters use
// the standard DOM types; linkedom implements the parts used here (firstChild/nextSibling walks,
// getAttribute, querySelectorAll, cloneNode).

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;

/** Hidden by the page itself: the `hidden` attribute or an inline `display:none`. */
export function isHidden(el: Element): boolean {
  if (el.hasAttribute("hidden")) return true;
  const style = el.getAttribute("style");
  return style?.includes("none") === true && /display\s*:\s*none/i.test(style);
}

/** True for elements whose subtree the text outputs (Markdown, tree, plain text) leave out. */
export function isSkipped(el: Element): boolean {
  return SKIP_TAGS.has(el.localName) || isHidden(el);
}

/** The document's base URL: `<base href>` resolved against the page URL, else the page URL. */
export function documentBase(root: Element, baseUrl: string): string {
  // <base> belongs in <head>; looking only there keeps this from scanning the whole document
  const head = root.ownerDocument?.head;
  let base: string | null = null;
  for (let n = head?.firstElementChild; n && base === null; n = n.nextElementSibling) {
    if (n.localName === "base") base = n.getAttribute("href");
  }
  if (base) {
    try {
      return new URL(base.trim(), baseUrl).href;
    } catch {
      // an unparsable <base href> is ignored, as browsers do
    }
  }
  return baseUrl;
}

/** An absolute URL for an attribute value, or null when it is empty, unparsable or `javascript:`/`data:`/`vbscript:`. */
export function absoluteUrl(raw: string | null | undefined, base: string): string | null {
  if (raw == null) return null;
  const value = raw.trim();
  if (value === "") return null;
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  const p = url.protocol;
  if (p === "javascript:" || p === "data:" || p === "vbscript:" || p === "blob:") return null;
  return url.href;
}

/** True for http(s) URLs; the only kind that `links` and `image_links` report. */
export function isWebUrl(url: string): boolean {
  return url.startsWith("https://") || url.startsWith("http://");
}

/** True when `href` only points within the current page (`#frag`), which the outputs do not link. */
export function isFragmentOnly(href: string | null): boolean {
  return href?.trim().startsWith("#") === true;
}

/** True for text and CDATA nodes. */
export function isText(node: Node): boolean {
  return node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE;
}

/**
 * The text of a run of adjacent text nodes starting at `first`, and the run's last node. linkedom
 * splits text at every character reference ("a &lt; b" is three nodes); escaping needs the whole run.
 */
export function textRun(first: ChildNode): { text: string; last: ChildNode } {
  let text = first.nodeValue ?? "";
  let last = first;
  for (let n = first.nextSibling; n && isText(n); n = n.nextSibling) {
    text += n.nodeValue ?? "";
    last = n;
  }
  return { text, last };
}

// Matches only real runs and non-space whitespace: replacing every single space would copy the text.
const WHITESPACE_RUN = / \s+|[^\S ]\s*/g;

/** Collapses whitespace runs (and any newline, tab or no-break space) to single spaces. */
export function collapseWhitespace(text: string): string {
  return text.replace(WHITESPACE_RUN, " ");
}

// Hand-written lookups: linkedom compiles a selector on every querySelector call, which costs more
// than walking a few elements.

/** The first descendant element named `tag`, in document order. */
export function firstDescendant(root: Element, tag: string): Element | null {
  for (let n = root.firstElementChild; n; n = n.nextElementSibling) {
    if (n.localName === tag) return n;
    const found = firstDescendant(n, tag);
    if (found) return found;
  }
  return null;
}

/** The first child element named `tag`. */
export function childElement(parent: Element, tag: string): Element | null {
  for (let n = parent.firstElementChild; n; n = n.nextElementSibling) if (n.localName === tag) return n;
  return null;
}

/** The text of an element without skipped descendants (textContent would include scripts and styles). */
export function visibleText(el: Element): string {
  let out = "";
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (isText(n)) out += n.nodeValue ?? "";
    else if (n.nodeType === ELEMENT_NODE && !isSkipped(n as Element)) {
      out += (n as Element).localName === "br" ? " " : visibleText(n as Element);
    }
  }
  return out;
}
