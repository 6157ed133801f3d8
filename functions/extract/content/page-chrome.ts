/**
 * The page's own chrome that can outweigh the page itself, and so escape the first pass's rule that
 * an element holding most of the page is a wrapper of it, not furniture (content/prune.ts).
 */
import { textStats } from "./dom.ts";

/**
 * A <nav> holding no heading of the page and hardly any paragraph is a menu however much text it
 * holds: a mega menu (every category and subcategory of a shop, spelled out, a "contact us" line)
 * can outweigh a product page.
 */
export function bareMenu(el: Element, tag: string, chars: number): boolean {
  return tag === "nav" && !el.querySelector("h1") && fewParagraphs(el, chars);
}

/**
 * The page's own <footer> (outside any article or main) is the footer, however much it spells out
 * (legal disclosures, link columns, an SEO blurb about the business); the wrapper exemption is for
 * elements that hold the page, and a footer holding the h1 does.
 */
export function pageFooter(el: Element, tag: string, inArticle: boolean): boolean {
  return tag === "footer" && !inArticle && el.querySelector("h1") === null;
}

/**
 * The page's own <header> (outside any article or main) that holds no h1 and hardly any paragraph
 * is the masthead and its menus, however much of the page it holds: a mega menu whose every entry
 * carries a line of description (a cloud vendor's product menu) can outweigh a short page.
 */
export function menuHeader(el: Element, tag: string, inArticle: boolean, chars: number): boolean {
  return tag === "header" && !inArticle && !el.querySelector("h1, main, article, [role=main]") && fewParagraphs(el, chars);
}

/** True when paragraphs hold under a tenth of the element's `chars`. */
function fewParagraphs(el: Element, chars: number): boolean {
  let inParagraphs = 0;
  for (const p of el.querySelectorAll("p")) inParagraphs += textStats(p).chars;
  return inParagraphs < 0.1 * chars;
}

/**
 * True when `el` lies in the page's own footer (a <footer> or contentinfo landmark outside any
 * article or main, holding no h1). Such a root is no main content: it is what is left of a page
 * whose body a script fills in (an app shell that ships an empty mount point and the site footer).
 */
export function inPageFooter(el: Element): boolean {
  const footer = el.closest("footer, [role=contentinfo]");
  return footer !== null && footer.closest("article, main, [role=main]") === null && footer.querySelector("h1") === null;
}
