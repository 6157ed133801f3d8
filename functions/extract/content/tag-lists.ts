/**
 * Tag lists: the links a blog or news CMS prints under a post to its tag archives ("Tags: stock
 * car brasil, stock car interlagos, …"), marked rel="tag" (WordPress and most themes). They name
 * other pages, not what the page says. The list goes when its block is nothing but those links, a
 * short label and separators; a paragraph of prose that links a term to its tag page stays.
 */
import { textStats } from "./dom.ts";

/** Text outside the links a tag list holds at most: a label ("Tags", "Filed under:") and commas. */
const LABEL_CHARS = 40;
/** Tags a block holds at least to be a tag list. */
const TAGS_MIN = 2;

/** Removes the tag lists inside `root`. */
export function dropTagLists(root: Element): void {
  const seen = new Set<Element>();
  for (const a of root.querySelectorAll('a[rel~="tag"]')) {
    const block = a.parentElement;
    if (!block || block === root || seen.has(block)) continue;
    seen.add(block);
    const links = block.querySelectorAll("a");
    let tags = 0;
    for (const l of links) if (/(^|\s)tag(\s|$)/.test(l.getAttribute("rel") ?? "")) tags++;
    if (tags < TAGS_MIN || tags < links.length) continue;
    const { chars, linkChars } = textStats(block);
    if (chars - linkChars <= LABEL_CHARS + 2 * tags) block.remove();
  }
}
