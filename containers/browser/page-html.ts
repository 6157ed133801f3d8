import type { Page } from "puppeteer-core";

/**
 * The page's HTML as Puppeteer's `page.content()` writes it (each of the document's child nodes:
 * the doctype and comments serialised, the root as its outerHTML), cut to `max` characters in the
 * page, before it crosses the protocol. A page's scripts can build a DOM of hundreds of MB: with
 * `page.content()` a render of one of 100 MB came back whole, 0.4 GB of this process, where the
 * caller keeps only the first MAX_BODY_BYTES (the fetch) or reads the first 200,000 characters (the
 * bot-wall check of every agent step).
 */
export function pageHtml(page: Page, max: number): Promise<string> {
  return page.evaluate((limit: number) => {
    let html = "";
    for (const node of document.childNodes) {
      html +=
        node === document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(node);
      if (html.length >= limit) break;
    }
    return html.length > limit ? html.slice(0, limit) : html;
  }, max);
}
