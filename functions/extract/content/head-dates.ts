/**
 * The dateline at the head of a page not read as an article: its date and reading time ("January
 * 17, 2025", "8 min read", "3 MIN. READ"), each printed in an element of its own beside the author.
 * Blogs that do not type their posts print them as every story does, above the text; they say when
 * the page was written, not what it says. Only a block element whose whole text is such a line goes
 * (a date inline in a sentence or a paragraph stays), and only near the top of the root (an
 * intro's worth of text before it at most): a date further down heads an entry or a post. Threads,
 * product and listing pages are not cleaned so. Article pages have their own rule for the whole story
 * (content/cleanup.ts); this one adds, at their head, the reading times it does not read ("3 MIN. READ").
 */
import { DATE_ONLY } from "./cleanup.ts";
import { textReader } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** A reading time alone ("8 min read", "3 MIN. READ", "Reading time: 5 minutes"). */
const READ_TIME = /^(\d+ min(ute)?s?\.? read|reading time:? \d+ min(ute)?s?)$/i;
/** A dateline is a few words. */
const LINE_CHARS = 60;
/** Text of the root before a line for it to be the head's: a headline and a standfirst. */
const HEAD_CHARS = 800;

/** Removes the date and reading-time lines near the top of `root`. */
export function dropHeadDates(root: Element, stats: StatsMap): void {
  let before = 0;
  const doomed: Element[] = [];
  const textOf = textReader();
  const visit = (el: Element): boolean => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (before > HEAD_CHARS) return false;
      const chars = stats.get(c)?.chars ?? 0;
      if (chars === 0) continue;
      if (chars <= LINE_CHARS) {
        const text = textOf(c).replace(/\s+/g, " ").trim();
        if (DATE_ONLY.test(text) || READ_TIME.test(text)) doomed.push(c);
        else if (c.firstElementChild && !visit(c)) return false;
        else if (!c.firstElementChild) before += chars;
      } else if (!c.firstElementChild) before += chars;
      else if (!visit(c)) return false;
    }
    return true;
  };
  visit(root);
  for (const d of doomed) d.remove();
}
