/**
 * Blocks opened by a label: a short first text ("Related discussions", "From our blog") that names
 * what the block holds. The label is rarely a heading element, so it is read from the block's first
 * text block (firstTextBlock, as facet panels are found). Used for lists of other threads
 * (other-threads.ts) and strips of teasers (teasers.ts).
 */
import { firstTextBlock } from "./facets.ts";
import type { NodeStats, StatsMap } from "./score.ts";

/** The label itself: a short first text. */
const LABEL_CHARS = 60;
/** Such a block never holds more than this share of the root's text (the rest is the content). */
const BLOCK_SHARE = 0.5;

/**
 * The outermost blocks inside `root` (at most half its text, longer than a label) whose first
 * text is a label `accepts` takes, given the block and its stats; blocks inside a taken one are
 * not visited.
 */
export function labelledBlocks(
  root: Element,
  stats: StatsMap,
  accepts: (label: string, block: Element, s: NodeStats) => boolean,
): Element[] {
  const limit = BLOCK_SHARE * (stats.get(root)?.chars ?? 0);
  const found: Element[] = [];
  const firsts = new Map<Element, Element | null>();
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      if (s.chars > LABEL_CHARS && s.chars <= limit) {
        const first = firstTextBlock(c, stats, firsts);
        const label = first ? spacedText(first) : "";
        if (first && label.length <= LABEL_CHARS && accepts(label, c, s)) {
          found.push(c);
          continue;
        }
      }
      if (c.firstElementChild) visit(c);
    }
  };
  visit(root);
  return found;
}

/**
 * The text of a label with a space between its elements' texts: a heading and a link beside it in
 * one short block ("<span>Recent Posts</span><a>View All</a>") read as two words, not one.
 */
function spacedText(el: Element): string {
  const parts: string[] = [];
  const walk = (n: Node) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) parts.push((c as Text).data);
      else if (c.nodeType === 1) {
        parts.push(" ");
        walk(c);
        parts.push(" ");
      }
    }
  };
  walk(el);
  return parts.join("").replace(/\s+/g, " ").trim();
}
