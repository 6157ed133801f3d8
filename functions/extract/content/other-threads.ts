/**
 * Lists of other threads on a discussion page: "Related discussions", "Similar threads", "Recent
 * conversations", "More … topics", "Check out other related discussions", "Explore related
 * questions". Forums print them under (or beside) the thread as a labelled block of linked titles
 * with reply counts and dates (or a question's tags); the label is rarely a heading element, so
 * the block is found by its first text, as facet panels are.
 * A block goes when it starts with such a label, holds little prose and at most half the root.
 */
import { firstTextBlock } from "./facets.ts";
import type { StatsMap } from "./score.ts";

const OTHER_THREADS =
  /^(check out |see |explore )?(other |more )?(related|similar|recent|other|more( [\w'’-]+){0,2}|latest|popular|trending|hot) (discussions|threads|topics|conversations|questions)\b\s*:?$/i;
const LABEL_CHARS = 60;
/** A list of titles: a block that is mostly prose is a post quoting such words. */
const PROSE_SHARE = 0.3;
const BLOCK_SHARE = 0.5;

/** Removes the labelled lists of other threads inside `root`. */
export function dropOtherThreads(root: Element, stats: StatsMap): void {
  const limit = BLOCK_SHARE * (stats.get(root)?.chars ?? 0);
  const doomed: Element[] = [];
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      if (s.chars > LABEL_CHARS && s.chars <= limit && s.prose <= PROSE_SHARE * s.chars) {
        const first = firstTextBlock(c, stats);
        const label = (first?.textContent ?? "").replace(/\s+/g, " ").trim();
        if (first && label.length <= LABEL_CHARS && OTHER_THREADS.test(label)) {
          doomed.push(c);
          continue;
        }
      }
      if (c.firstElementChild) visit(c);
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}
