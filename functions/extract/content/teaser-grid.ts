/**
 * Grids of teaser cards beside an article: "more from the blog" strips, a theme's post grid under
 * the story, a sidebar's feed of recent posts. Each card is another page's linked title (a heading
 * that is a link, a link around a heading, or a link alone in a block classed a title or headline:
 * a page builder's "elementor-post__title" <p>) with an excerpt and a date; the excerpts read as
 * prose and carry no links, so growing an article's root over the block looks like adding more
 * text. The block is found by its make: at least CARDS_MIN children of one make (under a chain of
 * single wrappers), each a short card with such a title.
 */
import { hasOneChild, linkHost, makeOf, sameSite } from "./dom.ts";
import type { StatsMap } from "./score.ts";

const CARDS_MIN = 3;
/** A card is short: a title, an excerpt of a few lines and a date. */
const CARD_CHARS = 800;
/** A card's title holds at least this many characters (a story's headline, not "More"). */
const TITLE_CHARS = 15;
const TITLE =
  "h2 a[href], h3 a[href], h4 a[href], h5 a[href], h6 a[href], a[href] h2, a[href] h3, a[href] h4, a[href] h5, a[href] h6, [class*=title] > a[href], [class*=headline] > a[href]";

/** A card's title: a linked headline to another page of the site (`host`, without "www."). */
function titled(card: Element, host: string): boolean {
  for (const t of card.querySelectorAll(TITLE)) {
    const link = t.tagName === "A" ? t : t.closest("a");
    const href = link?.getAttribute("href")?.trim() ?? "";
    const linked = href === "" || href.startsWith("#") ? null : linkHost(href);
    if (linked !== null && sameSite(linked || host, host) && (t.textContent ?? "").trim().length >= TITLE_CHARS) return true;
  }
  return false;
}

/** True when `el` (or its single wrapper chain) holds a grid of teaser cards. */
export function isTeaserGrid(el: Element, stats: StatsMap, host: string): boolean {
  return teaserBox(el, stats, host) !== null;
}

/** The element holding the cards of the teaser grid `el` is (itself or under single wrappers), or null. */
function teaserBox(el: Element, stats: StatsMap, host: string): Element | null {
  let box: Element | null = el;
  while (box && hasOneChild(box)) box = box.firstElementChild;
  if (!box || box.childElementCount < CARDS_MIN) return null;
  const counts = new Map<string, number>();
  for (let c = box.firstElementChild; c; c = c.nextElementSibling) {
    const s = stats.get(c);
    if (!s || s.chars === 0 || s.chars > CARD_CHARS || !titled(c, host)) continue;
    const make = makeOf(c);
    const n = (counts.get(make) ?? 0) + 1;
    if (n >= CARDS_MIN) return box;
    counts.set(make, n);
  }
  return null;
}

/**
 * Removes the teaser grids inside an article's root that follow an article's worth of prose (the
 * story comes first, the other posts after or beside it): the outermost elements that are such a
 * grid and hold at most a third of the root's text. Only when the prose core (`core`) is an
 * article's worth itself: on a section front or a blog index typed as an article, the cards are
 * the page.
 */
export function dropTeaserGrids(root: Element, stats: StatsMap, host: string, core: Element | null): void {
  if (!core || (stats.get(core)?.prose ?? 0) < ARTICLE_PROSE) return;
  const limit = ROOT_SHARE * (stats.get(root)?.chars ?? 0);
  const doomed: Element[] = [];
  let before = 0;
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      if (before >= ARTICLE_PROSE && s.chars <= limit && !core.contains(c) && isTeaserGrid(c, stats, host)) doomed.push(c);
      else if (c.firstElementChild && s.prose > 0) visit(c);
      else before += s.prose;
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}

const ROOT_SHARE = 1 / 3;

/** Prose an article holds outside the grids (the root, or the root so far) for them to go. */
const ARTICLE_PROSE = 1200;

/** Share of a step's added text that teaser grids must hold for the step to add furniture. */
const GRID_SHARE = 0.5;

/**
 * True when growing the root from `child` (an article's worth of prose already) to its ancestor
 * `parent` adds mostly teaser grids: the text of `parent`'s other children that are such grids, or
 * hold such grids after the article (NESTED_DEPTH), is at least GRID_SHARE of what the step adds.
 */
export function addsTeaserGrids(child: Element, parent: Element, stats: StatsMap, added: number, host: string): boolean {
  if ((stats.get(child)?.prose ?? 0) < ARTICLE_PROSE) return false;
  let grids = 0;
  let after = false;
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
    if (c === child || c.contains(child)) {
      after = true;
      continue;
    }
    grids += teaserChars(c, stats, host, after ? NESTED_DEPTH : 0);
  }
  return grids >= GRID_SHARE * added;
}

/**
 * How deep under a block the step adds after the article teaser grids are looked for: a theme's
 * "From the blog" section holds its carousels under a heading and wrappers, so the section is no
 * grid itself though most of its text is. Only after the article: above it, cards under a heading
 * are a guide's own picks ("Top pick", "Budget pick"), which its intro presents. WCXB article even
 * 0.9580 -> 0.9594 (4524 0.802 -> 1.000, 0296 0.614 -> 1.000; 4232 0.995 -> 0.993), odd 0.9445 ->
 * 0.9446 (0237 0.963 -> 1.000, 0123 0.986 -> 0.995; 0358 0.837 -> 0.831); looked for above the
 * article too, 2891 fell 0.953 -> 0.935 (its picks went).
 */
const NESTED_DEPTH = 3;

/** Text of the teaser grids in `el`: itself, or grids among its blocks down to `depth` levels. */
function teaserChars(el: Element, stats: StatsMap, host: string, depth: number): number {
  const s = stats.get(el);
  if (!s || s.chars === 0) return 0;
  if (isTeaserGrid(el, stats, host)) return s.chars;
  if (depth === 0 || s.prose === 0) return 0;
  let n = 0;
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) n += teaserChars(c, stats, host, depth - 1);
  return n;
}
