/**
 * Scores every element by the text blocks it holds and picks the content root.
 *
 * A block is the inline text directly inside a block-level element (its own text and that of
 * inline children). A block is worth its non-link characters minus a penalty for link text, so
 * prose counts for, link lists against. An element's score is the sum over its subtree; the root
 * is the element with the highest score (the maximum-sum subtree), the deepest one on ties.
 */
import { BLOCK_TAGS, ELEMENT_NODE, HEADING_TAGS, makeOf, TEXT_NODE, tagOf, WIDE_FROM, WIDE_TO, WIDE_WEIGHT } from "./dom.ts";

export interface NodeStats {
  score: number;
  chars: number;
  linkChars: number;
  /** Non-link characters in blocks that read like prose (long, few links). */
  prose: number;
  /** Non-link characters and punctuation of the element's own block (not its children's). */
  ownPlain: number;
  ownPunct: number;
}

export type StatsMap = Map<Element, NodeStats>;

const LINK_PENALTY = 1;

function blockValue(tag: string, chars: number, linkChars: number, punct: number): { value: number; prose: number } {
  if (chars === 0) return { value: 0, prose: 0 };
  const plain = chars - linkChars;
  if (HEADING_TAGS.has(tag)) return { value: plain * 0.5 - linkChars * 0.5, prose: 0 };
  const density = linkChars / chars;
  const prose = plain >= 80 && density < 0.3 && punct > 0 ? plain : 0;
  let value = plain - LINK_PENALTY * linkChars;
  if (prose) value += plain * 0.5;
  else if (plain < 25 && punct === 0 && tag !== "td" && tag !== "th") value -= 10;
  return { value, prose };
}

const GRID_MIN = 4;

/**
 * Item grids (product cards, listing entries): many siblings of one tag and class, each with a
 * little text around a link. Their link text is the content there, so a grid is worth its text
 * rather than the link penalty. Navigation menus are pruned before this and have one-word items.
 * The siblings are the element's block children, also those set inside an inline wrapper (a link
 * around each card, an unknown tag such as <list> around the entries): the wrapper starts no block
 * of its own, so its blocks are the element's. Counting only direct children left a news index's
 * entries (a heading and an excerpt, both linked, inside <list>) at the link penalty, and a strip
 * of linked names beside them won the page. WCXB (1,497 pages): listing odd 0.7811 -> 0.7944
 * (0259 0.08 -> 0.66); no other page moved.
 */
function gridScore(kids: [string, NodeStats][], score: number): number {
  const groups = new Map<string, NodeStats[]>();
  for (const [sig, s] of kids) {
    const g = groups.get(sig);
    if (g) g.push(s);
    else groups.set(sig, [s]);
  }
  let best = score;
  for (const items of groups.values()) {
    if (items.length < GRID_MIN) continue;
    let chars = 0;
    let itemScore = 0;
    for (const s of items) {
      chars += s.chars;
      itemScore += s.score;
    }
    if (chars / items.length < 20) continue;
    best = Math.max(best, score - itemScore + chars * GRID_WEIGHT);
  }
  return best;
}

const GRID_WEIGHT = 1;

/** Scores the subtree under `root`, filling `stats` for every block-level element. */
export function scoreTree(root: Element): StatsMap {
  const stats: StatsMap = new Map();
  const visit = (el: Element): NodeStats => {
    let chars = 0;
    let linkChars = 0;
    let punct = 0;
    let score = 0;
    let childChars = 0;
    let childLinks = 0;
    let prose = 0;
    const kids: [string, NodeStats][] = [];
    const inline = (node: Node, inLink: boolean) => {
      for (let c = node.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === TEXT_NODE) {
          const s = (c as Text).data;
          let n = 0;
          let space = true;
          for (let i = 0; i < s.length; i++) {
            const code = s.charCodeAt(i);
            if (code === 32 || code === 10 || code === 9 || code === 13 || code === 160) {
              if (!space) n++;
              space = true;
            } else {
              n += code >= WIDE_FROM && code <= WIDE_TO ? WIDE_WEIGHT : 1;
              space = false;
              // . , ; ! ? and their full-width forms
              if (
                code === 46 ||
                code === 44 ||
                code === 59 ||
                code === 33 ||
                code === 63 ||
                code === 0x3002 ||
                code === 0xff0c ||
                code === 0x3001
              )
                punct++;
            }
          }
          chars += n;
          if (inLink) linkChars += n;
        } else if (c.nodeType === ELEMENT_NODE) {
          const child = c as Element;
          const tag = tagOf(child);
          if (BLOCK_TAGS.has(tag) || tag.includes("-")) {
            const s = visit(child);
            kids.push([makeOf(child), s]);
            score += s.score;
            childChars += s.chars;
            childLinks += s.linkChars;
            prose += s.prose;
          } else inline(child, inLink || tag === "a");
        }
      }
    };
    inline(el, tagOf(el) === "a");
    if (kids.length >= GRID_MIN) score = Math.max(score, gridScore(kids, score));
    const own = blockValue(tagOf(el), chars, linkChars, punct);
    const result = {
      score: score + own.value,
      chars: chars + childChars,
      linkChars: linkChars + childLinks,
      prose: prose + own.prose,
      ownPlain: chars - linkChars,
      ownPunct: punct,
    };
    stats.set(el, result);
    return result;
  };
  visit(root);
  return stats;
}

/** The element with the highest score; on equal scores the deepest (visited first) wins. */
export function pickRoot(stats: StatsMap, fallback: Element): Element {
  let best = fallback;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const [el, s] of stats) {
    if (s.score > bestScore) {
      best = el;
      bestScore = s.score;
    }
  }
  return best;
}

/** A child holding this share of the root's score is the content, when what it leaves is leftovers. */
const HEART_SHARE = 0.9;

/**
 * The best-scoring subtree is the element with the highest sum, so any sibling of the content
 * that scores above zero pulls the root up a level: a promotion bar ("Your offer code: WEB2479"),
 * a "Sort by" line, a guarantee strip, "81,539 results". When one child holds nearly all of the
 * root's score and what the root holds beside it is no prose and no heading, that child is the
 * root (and so on down). A sibling that is a page's headline, a section's heading, a product's
 * name row or a paragraph of the page's own text stops the descent: each of those made pages fall
 * when the descent passed over them (product even -0.0094, service even -0.0029). Only containers
 * are entered, from containers: a root or child with text of its own is a text block (descending
 * into a story's first <p> lost its second; AEB fell 0.97793 -> 0.97777).
 * WCXB (1,497 pages): collection even 0.7482 -> 0.7505 (4379 +0.077, 4805 +0.048, 4410 +0.018),
 * listing odd 0.7944 -> 0.7958 (4033 +0.051, 0767 +0.010), no type down; 20 pages up, 4 down
 * (0656 -0.010, 4470 -0.005, two by 0.001); whole 0.88851 -> 0.88868 (even 0.89354 -> 0.89377,
 * odd 0.88347 -> 0.88359). A share of 0.8 took three more pages down (4376 -0.127) and none up.
 */
export function innerRoot(root: Element, stats: StatsMap): Element {
  for (;;) {
    const rs = stats.get(root);
    if (!rs || rs.score <= 0 || rs.ownPlain > 0) return root;
    let top: Element | null = null;
    let topScore = Number.NEGATIVE_INFINITY;
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) {
      const cs = stats.get(c);
      if (cs && cs.score > topScore) {
        top = c;
        topScore = cs.score;
      }
    }
    if (!top || topScore < HEART_SHARE * rs.score || (stats.get(top)?.ownPlain ?? 0) > 0) return root;
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) {
      const cs = stats.get(c);
      if (c === top || !cs || cs.chars === 0) continue;
      if (cs.prose > 0 || HEADING_TAGS.has(tagOf(c)) || c.querySelector("h1, h2, h3, h4, h5, h6")) return root;
    }
    root = top;
  }
}
