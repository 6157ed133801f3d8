/**
 * Items of a list that is not a link list. Documentation and service pages list what they point to
 * with a line on each ("<a>Learn about datasets</a>, BigQuery's top-level container of tables and
 * views."): an item alone is mostly its link and reads as a link block, which the cleanup removes,
 * one by one, from a list whose text is mostly not links. Such a list is the page's own; its items
 * stay with it. A list that is mostly links (a menu, "Related articles") is still a link list and goes
 * whole. WCXB (1,497 pages): 36 pages up (documentation 0.9402 to 0.9405, article 0.9513 to 0.9516;
 * a cloud provider's overview 0.948 to 0.966), 11 down by at most 0.0043 (reference lists under
 * health stories); AEB F1 0.9779 to 0.9784.
 */
import { tagOf } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** The link share above which a block is a link list (cleanup.ts). */
const LINK_LIST_SHARE = 0.6;

/** True when `item` is an <li> and its list as a whole is not mostly link text. */
export function itemOfTextList(item: Element, stats: StatsMap): boolean {
  if (tagOf(item) !== "li" || !item.parentElement) return false;
  const s = stats.get(item.parentElement);
  return s !== undefined && s.linkChars <= LINK_LIST_SHARE * s.chars;
}
