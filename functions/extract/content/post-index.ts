/**
 * An index of posts typed as an article. CMSs type every page "article" (og:type), a blog's or a
 * newsroom's index too: its root is then cleaned as a story, and each entry's linked title is cut
 * as a link block, leaving a column of excerpts without their titles. Such a root holds many
 * headings that are nothing but a link (the entries' titles) and little prose per entry (an
 * excerpt, one to a card); a story's linked headings (a list article's items, a related-posts
 * grid below it) come with far more prose, and its paragraphs run on in one container.
 */
import { textStats } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** Linked titles in a post index, at least. */
const TITLES_MIN = 4;
/** Prose per linked title at most: an excerpt, not a section. */
const PROSE_PER_TITLE = 400;
/** A title's link holds nearly all its heading's text. */
const TITLE_LINK_SHARE = 0.9;
/** Prose in the paragraphs of one container beyond which they are a story, not an excerpt. */
const STORY_PROSE = 600;
/** Linked titles are most of the root's headings. */
const TITLE_SHARE = 0.6;

/** True when `root` reads as an index of posts: linked entry titles over short excerpts. */
export function isPostIndex(root: Element, stats: StatsMap): boolean {
  let headings = 0;
  let titles = 0;
  for (const h of root.querySelectorAll("h2, h3, h4, h5, h6")) {
    headings++;
    if (h.querySelectorAll("a[href]").length !== 1) continue;
    const { chars, linkChars } = textStats(h);
    if (chars >= 10 && linkChars >= TITLE_LINK_SHARE * chars) titles++;
  }
  if (titles < TITLES_MIN || titles < TITLE_SHARE * headings) return false;
  if ((stats.get(root)?.prose ?? 0) > PROSE_PER_TITLE * titles) return false;
  // A story's paragraphs run on in one container; an index's excerpts stand one to a card.
  const runs = new Map<Element, number>();
  for (const p of root.querySelectorAll("p")) {
    const parent = p.parentElement;
    if (!parent) continue;
    const prose = (runs.get(parent) ?? 0) + (stats.get(p)?.prose ?? 0);
    if (prose > STORY_PROSE) return false;
    runs.set(parent, prose);
  }
  return true;
}
