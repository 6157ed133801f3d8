/**
 * Customer reviews on a product page: a section of what buyers wrote ("Customer reviews", a
 * review widget's list) is about the product but is not its description. Reviews are prose, so
 * the class rules of the first pass (content/prune.ts) keep a large one as a wrapper of content;
 * once the root is known, the blocks its markup names as the reviews go.
 *
 * Only class or id words that name a reviews block are trusted: the plural ("reviews",
 * "product-reviews-content", "app_reviews_area") or a product or customer review
 * ("customer-review"). A single "review" item or a tab panel called "write_review" may hold the
 * description tab itself, and "preview" or "overview" are other words.
 */
import { classAndId } from "./dom.ts";
import type { StatsMap } from "./score.ts";

const REVIEWS = /reviews|(product|customer)[-_]?review/;
/** A link or form to write a review ("write-review") sits in the buy box or in the description tab. */
const WRITE = /write/;
/** A block holding this share of the root is the page's wrapper ("has-reviews"), not its reviews. */
const WRAPPER_SHARE = 0.8;

function namesReviews(el: Element): boolean {
  const words = classAndId(el);
  if (!words.includes("review")) return false;
  for (const word of words.split(/\s+/)) if (REVIEWS.test(word) && !WRITE.test(word)) return true;
  return false;
}

/** Removes the blocks inside `root` that its markup names as customer reviews (never the product name's). */
export function dropReviews(root: Element, stats: StatsMap): void {
  const total = stats.get(root)?.chars ?? 0;
  const doomed: Element[] = [];
  for (const el of root.querySelectorAll("[class*=review i], [id*=review i]")) {
    if (doomed.some((d) => d.contains(el)) || !namesReviews(el)) continue;
    if (el.querySelector("h1") || (stats.get(el)?.chars ?? 0) > WRAPPER_SHARE * total) continue;
    doomed.push(el);
  }
  for (const el of doomed) el.remove();
}
