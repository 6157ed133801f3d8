/**
 * What kind of page this is, from cheap signals read once: the URL, og:type, microdata item
 * types and JSON-LD types. The extractor adapts to it: discussions keep their replies, articles
 * get prose-dense selection and head trimming, products are bounded by name and description.
 */
import { ELEMENT_NODE } from "./dom.ts";

/**
 * Forum URLs: a forum host, or a thread's path. /t/ and /topic/ name a thread only with its number
 * (Discourse's /t/title/931828, Invision's /topic/188682-title/): without one they are a news
 * site's topic index, a guide's /topics/ section or a shop's category. "showtopic" names a thread
 * as a query key or a path's first word (Invision's old index.php?showtopic=48213, ShowTopic-g29-i525-k154.html).
 * /post/ and a bare number ending the path is a post and its comment tree (Lemmy's /post/21018364):
 * a blog's post carries a slug after the number or in its place (/post/23-new-shops,
 * /post/7120/summer-sale, /blog/post/2026-01-26-title).
 */
const DISCUSSION_URL =
  /\/\/[^/]*forums?[^/]*\/|\/\/(?:community|discuss|discussion|boards?|answers)\.|\/(?:threads?|questions|forums?|community|discussions?|viewtopic\.php|showthread\.php)(?:\/|\?|$)|[/?&]showtopic[-=]|\/(?:t|topics?)\/(?:[^?#]*\/)?\d|\/r\/[^/]+\/comments\/|\/post\/\d+\/?(?:[?#]|$)/i;
const DISCUSSION_TYPE = /DiscussionForumPosting|QAPage/;
const ARTICLE_TYPE =
  /"@type"\s*:\s*"(?:News|Blog|Scholarly|Tech|Reportage|Opinion)?Article"|"BlogPosting"|"ReportageNewsArticle"|"OpinionNewsArticle"/;
const COLLECTION_URL = /\/(?:collections?|shop|category|categories|c|b|browse|cat|catalog|products|store|list)(?:\/|\?|$)/i;
const COLLECTION_TYPE = /CollectionPage|ItemList|OfferCatalog|SearchResultsPage/;
const PRODUCT_TYPE = /"@type"\s*:\s*"Product"/;
/**
 * An archive template: WordPress (and themes modelled on it) classes the body of every category,
 * tag, date, author and post-type index "archive". Such a page lists entries, whatever its og:type.
 */
const ARCHIVE_BODY = /(^|\s)archive(\s|$)/;
/**
 * A story's address: a slug of three words or more under a blog or news section
 * ("/blog/how-to-price-plumbing-jobs", "/articles/how-to-start-an-llc", "/blogs/news/desk-set-up").
 * Many posts declare no type (no og:type, no published time, no JSON-LD) and were cleaned as plain
 * pages, keeping the grids and calls to action beside the story. The section's front ("/blog/"),
 * its paged index ("/blog/page/2"), a one-word topic ("/news/technology") and a numbered post of a
 * forum ("/post/21018364") have no such slug.
 */
const STORY_URL =
  /\/(?:blogs?|news|articles?|posts?|stories|insights|journal|magazine)\/(?:[^?#]*\/)?[^/?#]*[a-z0-9]-[a-z0-9]+-[a-z0-9]/i;
/**
 * A Shopify collection's address ("/collections/portable-power-stations"): the shop's category
 * page, whatever its JSON-LD says. Themes print a Product block for the items of the grid there,
 * and a page read as a product is bounded by its name and description: the intro above the grid
 * stayed and the grid went (measured on WCXB, dev split: one even collection page 0.27 -> 0.62 F1,
 * no other page moved). An item's address under its collection ("/collections/socks/products/
 * wool-crew") is the product's own page.
 */
const SHOP_COLLECTION_URL = /\/collections\/[^/?#]+\/?(?:[?#]|$)/i;
/** JSON-LD beyond this many characters per block is not searched (some embed whole catalogues). */
const LD_SCAN = 50_000;

export interface PageKind {
  discussion: boolean;
  /** A question and its answers (schema.org QAPage): comments under a post are asides, not answers. */
  qa: boolean;
  /** Category, shop and search-result pages: the item grid is the content. */
  collection: boolean;
  article: boolean;
  /** A dated story: a published time, an Article or BlogPosting in JSON-LD, or a story's address (not og:type alone). */
  story: boolean;
  product: boolean;
}

export function pageKind(document: Document, url: string): PageKind {
  const { ld, itemTypes, ogTypeMeta, published } = typeSignals(document);
  const ogType = ogTypeMeta?.getAttribute("content")?.toLowerCase() ?? "";
  const archive = ARCHIVE_BODY.test(document.body?.getAttribute("class") ?? "");
  return {
    discussion: DISCUSSION_URL.test(url) || DISCUSSION_TYPE.test(ld) || DISCUSSION_TYPE.test(itemTypes),
    qa: /QAPage/.test(ld) || /QAPage/.test(itemTypes),
    collection: archive || COLLECTION_URL.test(url) || COLLECTION_TYPE.test(ld) || COLLECTION_TYPE.test(itemTypes),
    article: !archive && (ogType === "article" || published || ARTICLE_TYPE.test(ld) || STORY_URL.test(url)),
    story: !archive && (published || ARTICLE_TYPE.test(ld) || STORY_URL.test(url)),
    product:
      !SHOP_COLLECTION_URL.test(url) &&
      (/^(og:)?product\b/.test(ogType) || PRODUCT_TYPE.test(ld) || /schema\.org\/Product\b/.test(itemTypes)),
  };
}

/**
 * The JSON-LD text (script[type="application/ld+json"], the type matched in any case), the item
 * types ([itemtype]), the first meta[property="og:type"] and whether a
 * meta[property="article:published_time"] exists: what four document-wide queries found, read in
 * one walk in their order (document order, <template> contents skipped).
 */
function typeSignals(document: Document) {
  let ld = "";
  let itemTypes = "";
  let ogTypeMeta: Element | null = null;
  let published = false;
  const visit = (el: Element) => {
    const tag = el.localName;
    if (tag === "script" && el.getAttribute("type")?.toLowerCase() === "application/ld+json")
      ld += (el.textContent ?? "").slice(0, LD_SCAN);
    else if (tag === "meta") {
      const property = el.getAttribute("property");
      if (property === "og:type") ogTypeMeta ??= el;
      else if (property === "article:published_time") published = true;
    }
    if (el.hasAttribute("itemtype")) itemTypes += ` ${el.getAttribute("itemtype") ?? ""}`;
    if (tag === "template") return;
    for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === ELEMENT_NODE) visit(c as Element);
  };
  // From the root element on (linkedom's doctype node has no next sibling): markup after </html> too.
  for (let top: Node | null = document.documentElement; top; top = top.nextSibling)
    if (top.nodeType === ELEMENT_NODE) visit(top as Element);
  return { ld, itemTypes, ogTypeMeta: ogTypeMeta as Element | null, published };
}
