import { absoluteUrl, documentBase, ELEMENT_NODE, isFragmentOnly, isSkipped, isWebUrl } from "./dom.ts";
import { imageUrl, largestSrcsetUrl } from "./images.ts";

// `links` and `image_links` (spec 2.5) report absolute http(s) URLs only, de-duplicated in document
// order. mailto:, tel:, javascript: and other schemes are left out: the fields list pages and images
// a caller could fetch next, and an address is not one. In-page anchors (`#section`) are left out for
// the same reason; a link to another page with a fragment keeps its fragment. The scope is what the
// text outputs show: scripts, templates, embedded documents and hidden elements are not searched,
// except <noscript> (its images are the real ones behind lazy loading) and image maps' <area> links.

/** Calls `visit` for every element under `root` in document order, skipping what the outputs leave out. */
function walk(root: Element, visit: (el: Element) => void): void {
  for (let n = root.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== ELEMENT_NODE) continue;
    const el = n as Element;
    const tag = el.localName;
    if (tag !== "noscript" && tag !== "map" && isSkipped(el)) continue;
    visit(el);
    walk(el, visit);
  }
}

/** Absolute http(s) URLs of the anchors (`<a href>`, `<area href>`) under `root`, in document order. */
export function collectLinks(root: Element, baseUrl: string): string[] {
  const base = documentBase(root, baseUrl);
  const seen = new Set<string>();
  walk(root, (el) => {
    if (el.localName !== "a" && el.localName !== "area") return;
    const href = el.getAttribute("href");
    if (href === null || isFragmentOnly(href)) return;
    const url = absoluteUrl(href, base);
    if (url && isWebUrl(url)) seen.add(url);
  });
  return [...seen];
}

/**
 * Absolute http(s) URLs of the images under `root`: one per `<img>` (its largest srcset candidate,
 * else its lazy-loading attribute, else `src`), plus `<picture>` sources without a usable `<img>`.
 * `data:` URLs are never reported.
 */
export function collectImageLinks(root: Element, baseUrl: string): string[] {
  const base = documentBase(root, baseUrl);
  const seen = new Set<string>();
  walk(root, (el) => {
    if (el.localName === "img") {
      const url = imageUrl(el, base);
      if (url) seen.add(url);
    } else if (el.localName === "picture") {
      let img: Element | null = null;
      for (let n = el.firstElementChild; n && !img; n = n.nextElementSibling) if (n.localName === "img") img = n;
      if (img && imageUrl(img, base)) return;
      for (let n = el.firstElementChild; n; n = n.nextElementSibling) {
        if (n.localName !== "source") continue;
        const url = absoluteUrl(largestSrcsetUrl(n.getAttribute("srcset") ?? n.getAttribute("data-srcset")), base);
        if (url && isWebUrl(url)) seen.add(url);
      }
    }
  });
  return [...seen];
}
