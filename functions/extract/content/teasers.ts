/**
 * Teaser sections: a block of linked cards pointing at other pages of the site, opened by a
 * label that says so ("From our blog", "Featured insights", "Latest news", "You may also like",
 * "Related resources"). Service and landing pages close with them, articles print them under the
 * text; the cards are titles and excerpts inside links, so the block is mostly link text. The
 * label is often a kicker in a <p> or <span> rather than a heading, so the block is found by its
 * first text block, as facet panels are. A block goes when it starts with such a label, is mostly
 * links (or, under a label that can only mean other pages, is cards with excerpts), and holds at
 * most half the root. A service page's "Related services" and "Other services" are such cards too:
 * WCXB (1,497 pages), two service pages up (0.902 to 0.928, 0.905 to 0.952), none down.
 */
import { textStats } from "./dom.ts";
import { labelledBlocks } from "./labelled.ts";
import type { StatsMap } from "./score.ts";

const KIND =
  "insights|articles|posts|news|stories|resources|blogs?( posts)?|reads|guides|case studies|content|updates|videos|webinars|reports|publications|events|services";
const TEASER_LABEL = new RegExp(
  `^((from|on) (our|the) (blog|journal|newsroom|insights)|(featured|latest|recent|related|more|popular|other|trending|top|recommended|further|additional|explore( our)?( latest| related| more)?)( [\\w'’-]+)? (${KIND})|you (may|might) also (like|enjoy|be interested in)|(read|see) (more|next|also)|keep reading|further reading|related reading|more to (read|explore)|explore more)\\b.{0,20}?\\s*:?$`,
  "i",
);
/**
 * Labels that can only mean other pages ("Related articles", "Recent posts", "You may also
 * like", "Further reading", "Explore more"): under them the cards may carry excerpts outside
 * their links (a title link, a date, two lines of the other page) and the block still goes; a
 * "Latest news" kicker over the page's own paragraphs stays (no card titles, no links). The
 * other teaser labels also open a page's own sections ("Additional resources", "Featured
 * resources", "Read more", "See also", a category page's "More electronics posts"): there the
 * block must be mostly links.
 */
const OTHER_PAGES_LABEL = new RegExp(
  `^((related|recent|latest|popular|other|trending|recommended)( [\\w'’-]+)? (${KIND})|you (may|might) also (like|enjoy|be interested in)|further reading|related reading|keep reading|explore more|more to (read|explore)|(from|on) (our|the) (blog|journal|newsroom|insights))\\b`,
  "i",
);
const LINK_SHARE = 0.5;
/** Card titles or links a strip of excerpt cards holds at least. */
const CARDS_MIN = 3;
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

/** Cards, not a section of prose: at least CARDS_MIN headings (card titles) or links. */
function cards(el: Element): boolean {
  return el.querySelectorAll("h2, h3, h4, h5, h6").length >= CARDS_MIN || el.querySelectorAll("a[href]").length >= CARDS_MIN;
}

/** Removes the labelled teaser sections inside `root`. */
export function dropTeaserSections(root: Element, stats: StatsMap): void {
  const doomed = labelledBlocks(
    root,
    stats,
    (label, block) => TEASER_LABEL.test(label) && (mostlyLinks(block) || (OTHER_PAGES_LABEL.test(label) && cards(block))),
  );
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
