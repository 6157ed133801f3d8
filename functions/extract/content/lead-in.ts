/**
 * Lists a sentence introduces: what follows a lead-in ending with a colon is the sentence's, not
 * the page's furniture, whatever share of it is links.
 */
import { hasOneChild, tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** A sentence's lead-in to what follows: three words or more, ending with a colon. */
const LEAD_IN = /\S\s+\S+\s+\S+.*:$/;
const LEAD_IN_CHARS = 300;
/** A lead-in that invites the reader to the site's other pages ("If you liked this post you might also like:"). */
const READ_MORE =
  /\b(learn more|read|check out|interest(ed|ing)|(might|may) (also )?like|our (other|most popular|latest|related)|more( helpful)? (articles|posts|guides|stories|reading)|following (guides|articles|posts|reviews|stories)|(articles|posts|guides|blogs?|stories) (by|about|on|from)|series)\b/i;

/**
 * A list that a sentence introduces ("Many patches were sent for review:", "Here are some examples
 * of the courses offered by Google:"): the list, or a wrapper holding only it, right after a block
 * that ends with a colon. Its entries are what the sentence names, links or not; the cleanup took a
 * list of links for furniture, and the entries of a list it kept one by one. Not after a label
 * (`label`: "Related:", "Tags:") or an invitation to read more. WCXB: article odd 0.9450 -> 0.9456
 * (0389 0.739 -> 0.825, 0215 0.891 -> 0.950, 0275 0.904 -> 0.962), even 0.9596 -> 0.9597,
 * documentation odd +0.0013, service odd +0.0003; 4444 -0.011 (a newsletter's lists of its own
 * videos and events), 0287 -0.006 ("Some of the services we offer include:"). Without READ_MORE,
 * lists of the site's other posts came back (0320 -0.017, 0488 -0.011, 4601 -0.006).
 */
export function introduced(el: Element, stats: StatsMap, label: RegExp): boolean {
  let list: Element | null = el;
  while (list && hasOneChild(list) && !LISTS.has(tagOf(list))) list = list.firstElementChild;
  if (!list || !LISTS.has(tagOf(list))) return false;
  let p = el.previousElementSibling;
  while (p && (stats.get(p)?.chars ?? 1) === 0) p = p.previousElementSibling;
  if (!p || (stats.get(p)?.chars ?? 0) > LEAD_IN_CHARS) return false;
  const t = (p.textContent ?? "").replace(/\s+/g, " ").trim();
  return t.length <= LEAD_IN_CHARS && LEAD_IN.test(t) && !label.test(t) && !READ_MORE.test(t);
}
const LISTS = new Set(["ul", "ol"]);
