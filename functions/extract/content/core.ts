/**
 * The article core: paragraphs vote for their parent (full weight), grandparent (half) and
 * great-grandparent (a third), so the container where prose is concentrated wins, not a page
 * wrapper that also holds teasers. Siblings of the core that read like more of the same are
 * merged back (split article bodies, intro blocks).
 */
import { tagOf } from "./dom.ts";
import { holdsEntries, INTRO_PROSE } from "./listing.ts";
import type { StatsMap } from "./score.ts";
import { addsTeaserGrids } from "./teaser-grid.ts";

const VOTER_MIN = 25;
/**
 * A reference list's entries (citations: authors, titles, dates, punctuation) read like prose
 * but are notes to the text; on a page whose text is a table or lists they could outvote it.
 */
const NOTES = "ol.references, .reflist, .footnotes";

export interface Core {
  el: Element;
  score: number;
  /** Score of every candidate, for the sibling decision. */
  scores: Map<Element, number>;
}

export function findCore(stats: StatsMap): Core | null {
  const votes = new Map<Element, number>();
  for (const [el, s] of stats) {
    if (s.ownPlain < VOTER_MIN || el.closest(NOTES) !== null) continue;
    const vote = 1 + s.ownPunct * 0.5 + Math.min(Math.floor(s.ownPlain / 100), 3);
    let anc = el.parentElement;
    for (let level = 0; anc && level < 3; level++, anc = anc.parentElement) {
      votes.set(anc, (votes.get(anc) ?? 0) + vote / (level === 0 ? 1 : level === 1 ? 2 : level * 3));
    }
  }
  let best: Element | null = null;
  let bestScore = 0;
  const scores = new Map<Element, number>();
  for (const [el, v] of votes) {
    const s = stats.get(el);
    const density = s && s.chars > 0 ? s.linkChars / s.chars : 0;
    const score = v * (1 - density);
    scores.set(el, score);
    if (score > bestScore) {
      best = el;
      bestScore = score;
    }
  }
  return best ? { el: best, score: bestScore, scores } : null;
}

/**
 * Merges the core's good siblings: returns the element to use as root (the core or its parent,
 * trimmed). With `entries` (pages that are no article), a sibling holding a list of linked
 * entries that outweighs a short core (an intro) is kept: a shop's or category's intro above its
 * items. After a long text the entries are other pages'.
 */
export function mergeSiblings(core: Core, stats: StatsMap, entries = false): Element {
  const parent = core.el.parentElement;
  if (!parent || tagOf(parent) === "html") return core.el;
  const threshold = Math.max(10, core.score * 0.2);
  const keep = new Set<Element>([core.el]);
  const coreStats = stats.get(core.el);
  const coreChars = coreStats?.chars ?? 0;
  const shortIntro = (coreStats?.prose ?? 0) < INTRO_PROSE;
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
    if (c === core.el) continue;
    const s = stats.get(c);
    if (!s || s.chars === 0) continue;
    const density = s.linkChars / s.chars;
    const plain = s.chars - s.linkChars;
    if ((core.scores.get(c) ?? 0) >= threshold) keep.add(c);
    else if (plain > 80 && density < 0.25 && s.prose > 0) keep.add(c);
    else if (tagOf(c) === "p" && plain > 0 && density === 0 && s.ownPunct > 0) keep.add(c);
    else if (entries && shortIntro && s.chars > coreChars && holdsEntries(c, stats)) keep.add(c);
  }
  if (keep.size === 1) return core.el;
  for (let c = parent.firstElementChild; c; ) {
    const next = c.nextElementSibling;
    if (!keep.has(c) && (stats.get(c)?.chars ?? 0) > 0) c.remove();
    c = next;
  }
  return parent;
}

const EXPAND_LINK_DENSITY = 0.4;
/** A step may add short non-prose (headline, byline) but not a block as big as a quarter of what it has. */
const EXPAND_PROSE = 0.3;
const EXPAND_BULK = 0.25;

/**
 * Walks up from the core towards the best-scoring subtree while what each step adds reads like
 * content (few links, some prose), and stops at the first step that mostly adds furniture.
 */
export function expandCore(core: Core, limit: Element, stats: StatsMap, strict: boolean, host?: string): Element {
  return expandFrom(mergeSiblings(core, stats, !strict), limit, stats, strict, host);
}

/**
 * The nearest ancestor of `el` (up to `limit`) that has stats: inline wrappers (a card's <a>,
 * <span>) carry none of their own, so they are looked past.
 */
export function statsParent(el: Element, limit: Element, stats: StatsMap): Element | null {
  let parent = el.parentElement;
  while (parent && parent !== limit && !stats.has(parent)) parent = parent.parentElement;
  return parent;
}

/**
 * `strict` (articles): also stop at a step that adds a bulky block of non-prose, or (given the
 * page's `host`) one that adds mostly grids of the site's other posts.
 */
export function expandFrom(start: Element, limit: Element, stats: StatsMap, strict: boolean, host?: string): Element {
  let el = start;
  while (el !== limit) {
    const parent = statsParent(el, limit, stats);
    const a = stats.get(el);
    const b = parent ? stats.get(parent) : undefined;
    if (!parent || !a || !b) break;
    // A root does not grow past the page's one <main>: what lies beside it is the site's.
    if (onlyMain(el)) break;
    const chars = b.chars - a.chars;
    const links = b.linkChars - a.linkChars;
    const prose = b.prose - a.prose;
    const score = b.score - a.score;
    const bulky = strict && chars > EXPAND_BULK * a.chars && chars < 4 * a.chars && prose < EXPAND_PROSE * chars;
    if (chars > 0 && (score < 0 || links > EXPAND_LINK_DENSITY * chars || bulky)) break;
    // An article's root does not grow over grids of other posts' cards (content/teaser-grid.ts).
    if (strict && host && chars > 0 && addsTeaserGrids(el, parent, stats, chars, host)) break;
    el = parent;
  }
  return el;
}

/** True when `el` is the document's one main element (<main> or role=main). */
export function onlyMain(el: Element): boolean {
  if (el.tagName !== "MAIN" && el.getAttribute("role") !== "main") return false;
  return (el.ownerDocument?.querySelectorAll("main, [role=main]").length ?? 0) === 1;
}

/** The page's one main element is the root when it holds this share of the best subtree's score. */
const MAIN_SHARE = 0.8;

/**
 * The page's one <main> (or role=main) inside the best-scoring subtree, when it holds most of that
 * subtree's score: the page says where its content is, and what the subtree holds beside it (an
 * announcement bar, a newsletter box, a site-wide "recently viewed" strip) is the site's. A <main>
 * that holds little of the score (a page that sets only its title or its filters in it) is passed
 * over. WCXB (1,497 pages): listing odd 0.7958 -> 0.7986 (2970 +0.094, 4361 +0.017, 2907 +0.011),
 * article even +0.0002 (0124 +0.074), service +0.0002 (4914 +0.022), collection even -0.0003 (0656
 * -0.038, its <main> holding 0.83; 1435 +0.012), odd -0.00004 (0642 -0.007); 12 pages up, 2 down;
 * whole 0.88906 -> 0.88920 (even +0.00008, odd +0.00020). At 0.85 the same less 2970 and 0656; at
 * 0.5 a listing whose <main> held half fell (4632 -0.347).
 */
export function ownMain(best: Element, stats: StatsMap): Element | null {
  const mains = best.ownerDocument?.querySelectorAll("main, [role=main]");
  const main = mains?.length === 1 ? mains[0] : undefined;
  if (!main || main === best || !best.contains(main)) return null;
  const ms = stats.get(main);
  const bs = stats.get(best);
  return ms && bs && bs.score > 0 && ms.score >= MAIN_SHARE * bs.score ? main : null;
}
