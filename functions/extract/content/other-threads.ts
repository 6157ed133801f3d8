/**
 * Lists of other threads on a discussion page: "Related discussions", "Similar threads", "Recent
 * conversations", "More … topics", "Check out other related discussions", "Explore related
 * questions". Forums print them under (or beside) the thread as a labelled block of linked titles
 * with reply counts and dates (or a question's tags); the label is rarely a heading element, so
 * the block is found by its first text, as facet panels are.
 * A block goes when it starts with such a label, holds little prose and at most half the root.
 */
import { labelledBlocks } from "./labelled.ts";
import type { StatsMap } from "./score.ts";

const OTHER_THREADS =
  /^(check out |see |explore )?(other |more )?(related|similar|suggested|recent|other|more( [\w'’-]+){0,2}|latest|popular|trending|hot) (discussions|threads|topics|conversations|questions)\b\s*:?$/i;
/** A list of titles: a block that is mostly prose is a post quoting such words. */
const PROSE_SHARE = 0.3;
/** A list whose entries carry excerpts reads as prose: it is still one when it links to this many threads. */
const LINKS_MIN = 3;

/** Removes the labelled lists of other threads inside `root`. */
export function dropOtherThreads(root: Element, stats: StatsMap): void {
  const lists = labelledBlocks(
    root,
    stats,
    (label, block, s) => OTHER_THREADS.test(label) && (s.prose <= PROSE_SHARE * s.chars || links(block) >= LINKS_MIN),
  );
  for (const d of lists) d.remove();
}

/** How many links to other pages (not to a place on this one) `block` holds. */
function links(block: Element): number {
  let n = 0;
  for (const a of block.querySelectorAll("a[href]")) if (!(a.getAttribute("href") ?? "").startsWith("#")) n++;
  return n;
}
