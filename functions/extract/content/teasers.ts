/**
 * Teaser sections: a block of linked cards pointing at other pages of the site, opened by a
 * label that says so ("From our blog", "Featured insights", "Latest news", "You may also like",
 * "Related resources"). Service and landing pages close with them, articles print them under the
 * text; the cards are titles and excerpts inside links, so the block is mostly link text. The
 * label is often a kicker in a <p> or <span> rather than a heading, so the block is found by its
 * first text block, as facet panels are. A block goes when it starts with such a label, is mostly
 * links, holds little prose and at most half the root.
 */
import { textStats } from "./dom.ts";
import { labelledBlocks } from "./labelled.ts";
import type { StatsMap } from "./score.ts";

const KIND =
  "insights|articles|posts|news|stories|resources|blogs?( posts)?|reads|guides|case studies|content|updates|videos|webinars|reports|publications|events";
const TEASER_LABEL = new RegExp(
  `^((from|on) (our|the) (blog|journal|newsroom|insights)|(featured|latest|recent|related|more|popular|other|trending|top|recommended|further|additional|explore( our)?( latest| related| more)?)( [\\w'’-]+)? (${KIND})|you (may|might) also (like|enjoy|be interested in)|(read|see) (more|next|also)|keep reading|further reading|related reading|more to (read|explore)|explore more)\\b.{0,20}?\\s*:?$`,
  "i",
);
const LINK_SHARE = 0.5;
/** Link share of the rest of the root above which the page is a listing of cards. */
const CARDS_SHARE = 0.7;

/**
 * True when most of the block's text lies inside links. Counted here rather than read from the
 * scores: a card whose link wraps block elements (a title and an excerpt) is scored as prose.
 */
function mostlyLinks(el: Element): boolean {
  const { chars, linkChars } = textStats(el);
  return linkChars >= LINK_SHARE * chars;
}

/** Removes the labelled teaser sections inside `root`. */
export function dropTeaserSections(root: Element, stats: StatsMap): void {
  const doomed = labelledBlocks(root, stats, (label, block) => TEASER_LABEL.test(label) && mostlyLinks(block));
  if (doomed.length === 0) return;
  // On a page whose other text is link cards too (a blog's or a paper's front page), labelled
  // sections of teasers are the page: "Latest articles", "More to explore".
  const all = textStats(root);
  let chars = 0;
  let links = 0;
  for (const d of doomed) {
    const t = textStats(d);
    chars += t.chars;
    links += t.linkChars;
  }
  if (all.linkChars - links > CARDS_SHARE * (all.chars - chars)) return;
  for (const d of doomed) d.remove();
}
