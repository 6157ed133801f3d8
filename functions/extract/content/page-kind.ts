/**
 * What kind of page this is, from cheap signals read once: the URL, og:type, microdata item
 * types and JSON-LD types. The extractor adapts to it: discussions keep their replies, articles
 * get prose-dense selection and head trimming, products are bounded by name and description.
 */

/**
 * Forum URLs: a forum host, or a thread's path. /t/ and /topic/ name a thread only with its number
 * (Discourse's /t/title/931828, Invision's /topic/188682-title/): without one they are a news
 * site's topic index, a guide's /topics/ section or a shop's category.
 */
const DISCUSSION_URL =
  /\/\/[^/]*forums?[^/]*\/|\/\/(?:community|discuss|discussion|boards?|answers)\.|\/(?:threads?|questions|forums?|community|discussions?|viewtopic\.php|showthread\.php)(?:\/|\?|$)|\/(?:t|topics?)\/(?:[^?#]*\/)?\d|\/r\/[^/]+\/comments\//i;
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
/** JSON-LD beyond this many characters per block is not searched (some embed whole catalogues). */
const LD_SCAN = 50_000;

export interface PageKind {
  discussion: boolean;
  /** A question and its answers (schema.org QAPage): comments under a post are asides, not answers. */
  qa: boolean;
  /** Category, shop and search-result pages: the item grid is the content. */
  collection: boolean;
  article: boolean;
  product: boolean;
}

export function pageKind(document: Document, url: string): PageKind {
  let ld = "";
  for (const s of document.querySelectorAll('script[type="application/ld+json"]')) ld += (s.textContent ?? "").slice(0, LD_SCAN);
  let itemTypes = "";
  for (const el of document.querySelectorAll("[itemtype]")) itemTypes += ` ${el.getAttribute("itemtype") ?? ""}`;
  const ogType = document.querySelector('meta[property="og:type"]')?.getAttribute("content")?.toLowerCase() ?? "";
  const published = document.querySelector('meta[property="article:published_time"]') !== null;
  const archive = ARCHIVE_BODY.test(document.body?.getAttribute("class") ?? "");
  return {
    discussion: DISCUSSION_URL.test(url) || DISCUSSION_TYPE.test(ld) || DISCUSSION_TYPE.test(itemTypes),
    qa: /QAPage/.test(ld) || /QAPage/.test(itemTypes),
    collection: archive || COLLECTION_URL.test(url) || COLLECTION_TYPE.test(ld) || COLLECTION_TYPE.test(itemTypes),
    article: !archive && (ogType === "article" || published || ARTICLE_TYPE.test(ld)),
    product: /^(og:)?product\b/.test(ogType) || PRODUCT_TYPE.test(ld) || /schema\.org\/Product\b/.test(itemTypes),
  };
}
