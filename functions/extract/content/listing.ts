/**
 * Pages made of many blocks of one make: listings (blog indexes, recipe and result lists: many
 * siblings of one tag and class, each a linked entry) and articles that a page builder lays out
 * as sibling sections of one class. The prose core lands in one block, the entry or section with
 * the most prose, and the others are read as furniture. When the blocks around the chosen root
 * together outweigh it, they are the content: the root widens to the grid that holds them.
 * A root that is a category page's short intro, above entries that hold little prose, widens to
 * the best-scoring subtree around it (the intro and the entries).
 */
import { hasOneChild, makeOf } from "./dom.ts";
import type { NodeStats, StatsMap } from "./score.ts";

/** Entries in a grid, and the least text per entry (a title). */
const ITEMS_MIN = 4;
const ITEM_CHARS = 15;
/** Entries that are nothing but their link (a table of contents, a menu) make a link list, not a grid. */
const ITEM_LINK_SHARE = 0.8;
/** An intro is short: a root with this much prose is an article, whatever follows it. */
export const INTRO_PROSE = 1200;
/** Entries with this share of prose are sections of one text rather than entries of a list. */
const SECTION_PROSE = 0.5;
/** The grid must hold this many times the root's text to be the content rather than a teaser block. */
const GRID_OVER_ROOT = 1.5;

interface Entries {
  n: number;
  chars: number;
  prose: number;
}

/** The entries of one make among `el`'s children that `member` is one of, if they make a grid. */
function entriesOf(el: Element, member: Element, stats: StatsMap): Entries | null {
  if (el.childElementCount < ITEMS_MIN) return null;
  const want = makeOf(member);
  const out: Entries = { n: 0, chars: 0, prose: 0 };
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    const cs = stats.get(c);
    if (!cs || cs.chars < ITEM_CHARS || cs.linkChars > ITEM_LINK_SHARE * cs.chars || makeOf(c) !== want) continue;
    if (c !== member && cs.prose === 0 && !c.querySelector("a[href]")) continue;
    out.n++;
    out.chars += cs.chars;
    out.prose += cs.prose;
  }
  return out.n >= ITEMS_MIN ? out : null;
}

/**
 * The element to use instead of `root` when `root` lies in one entry of a grid under `scope`
 * whose entries together outweigh it (the nearest such grid), or `scope` when `root` is a short
 * intro above entries (widenIntro), or null when the root stands.
 */
export function widenToGrid(root: Element, scope: Element, stats: StatsMap, story = true): Element | null {
  const rootStats = stats.get(root);
  if (!rootStats) return null;
  const least = GRID_OVER_ROOT * rootStats.chars;
  for (let member = root, el = root.parentElement; el && member !== scope; member = el, el = el.parentElement) {
    // Cheap test first: an ancestor with too little text cannot hold entries that outweigh the root.
    if ((stats.get(el)?.chars ?? 0) < least) continue;
    const entries = stats.has(member) ? entriesOf(el, member, stats) : null;
    if (!entries || entries.chars < least) continue;
    // After an article's worth of prose, only more prose of the same make (the article's other
    // sections, laid out as siblings by a page builder) joins; teasers of other stories do not.
    if (rootStats.prose >= INTRO_PROSE && entries.prose < SECTION_PROSE * entries.chars) return null;
    return el;
  }
  return widenIntro(rootStats, scope, stats, story ? INTRO_SHARE : PAGE_INTRO_SHARE);
}

/** An intro is a small part of the page: the root must hold less than this share of the scope's text. */
const INTRO_SHARE = 0.25;
/**
 * On a page not typed as an article (a category, a shop's or a service's page) the text beside the
 * entries may be longer: a closing text that held 26% of a jewellery category left its grid out.
 * A story's short brief beside a grid of other stories' titles stays at a quarter. WCXB (1,497
 * pages): collection odd 0.7819 -> 0.7914 (4394 0.47 -> 0.98), service odd 0.8586 -> 0.8592 (4848
 * +0.046), no page down; 0.5 moved the same pages, and on every page 0.514 took an article down.
 */
const PAGE_INTRO_SHARE = 0.4;
/** What follows an intro is a list of entries when it holds next to no prose (not teasers of other stories). */
const REST_PROSE = 0.1;

/**
 * A category, archive or search page opens with a short intro (its only prose) above a list of
 * entries: names, links, prices, dates. The prose core lands in the intro and the entries are
 * read as furniture. When the root is such an intro (short prose, a small share of the scope's
 * text) and what else the scope holds is next to no prose, the scope is the content. Teasers of
 * other stories around a short news story carry summaries, and stay out.
 */
function widenIntro(root: NodeStats, scope: Element, stats: StatsMap, share: number): Element | null {
  const all = stats.get(scope);
  if (!all || root.prose >= INTRO_PROSE || root.chars >= share * all.chars) return null;
  const restProse = all.prose - root.prose;
  return restProse < REST_PROSE * (all.chars - root.chars) ? scope : null;
}

/**
 * True when `el`, or its single wrapper chain, holds a list of linked entries: at least
 * ITEMS_MIN children of one make, each with a title's worth of text, a link and more than link
 * text (not a menu or a table of contents).
 */
export function holdsEntries(el: Element, stats: StatsMap): boolean {
  let box: Element | null = el;
  while (box && hasOneChild(box)) box = box.firstElementChild;
  if (!box || box.childElementCount < ITEMS_MIN) return false;
  const counts = new Map<string, number>();
  for (let c = box.firstElementChild; c; c = c.nextElementSibling) {
    const cs = stats.get(c);
    if (!cs || cs.chars < ITEM_CHARS || cs.linkChars > ITEM_LINK_SHARE * cs.chars || !c.querySelector("a[href]")) continue;
    const make = makeOf(c);
    const n = (counts.get(make) ?? 0) + 1;
    if (n >= ITEMS_MIN) return true;
    counts.set(make, n);
  }
  return false;
}

/** On a list page, lists of links hold at least this share of the root's text... */
const LIST_SHARE = 0.5;
/** ...and prose at most this share (an article's link lists are asides to its prose). */
const LIST_PROSE = 0.3;
/** A list of links: link text is more than this share of it (as for cleanup's link lists). */
const LIST_LINKS = 0.6;

/**
 * A list article: an index of links under a short intro ("List of programming languages", a
 * glossary of linked terms). The cleanup drops link lists inside an article as furniture; here
 * they are the text. The root's text lies mostly in outermost lists that are nothing but links,
 * and little of it reads as prose.
 */
export function isListPage(root: Element, stats: StatsMap): boolean {
  const s = stats.get(root);
  if (!s || s.chars === 0 || s.prose > LIST_PROSE * s.chars) return false;
  let inLists = 0;
  for (const list of root.querySelectorAll("ul, ol")) {
    const outer = list.parentElement?.closest("ul, ol");
    if (outer && root.contains(outer)) continue;
    const ls = stats.get(list);
    if (ls && ls.prose === 0 && ls.linkChars > LIST_LINKS * ls.chars) inLists += ls.chars;
  }
  return inLists >= LIST_SHARE * s.chars;
}
