/**
 * Blocks shown twice: responsive layouts ship the same section once for wide screens and once for
 * narrow ones (a product's name and blurb, a feature band, a footnote), tabs repeat their
 * headings in an accordion, sliders clone their first slides. A reader sees one copy; the
 * extractor saw both. A block whose text (at least REPEAT_MIN characters, whitespace and case
 * aside) equals that of an earlier block in the root goes; code and quotations are never touched (they
 * repeat on purpose), nor the fine print every item of a list repeats (each coupon's "Not valid with
 * other offers"): the same part of sibling items of one make, nor a line repeated within one flat
 * text.
 */

import { makeOf, tagOf, textReader } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** Shorter blocks ("Add to cart", "Yes", a price) repeat by nature: grids, tables, option lists. */
const REPEAT_MIN = 30;
/** Larger blocks are compared by their parts: reading their whole text costs more than it saves. */
const REPEAT_MAX = 3000;

/** Code examples and quotations repeat on purpose (a pull quote, a quoted sentence). */
const REPEAT_TAGS = new Set(["pre", "code", "blockquote", "q"]);

export function dropRepeatedBlocks(root: Element, stats: StatsMap): void {
  const seen = new Map<string, Element>();
  const doomed: Element[] = [];
  const textOf = textReader();
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (REPEAT_TAGS.has(tagOf(c))) continue;
      const s = stats.get(c);
      if (s && s.chars >= REPEAT_MIN && s.chars <= REPEAT_MAX) {
        const key = textOf(c).replace(/\s+/g, " ").trim().toLowerCase();
        if (key.length >= REPEAT_MIN) {
          const first = seen.get(key);
          // A wrapper and its only child read the same: only a copy elsewhere is a repeat.
          if (first && !first.contains(c) && !partOfItems(first, c, stats) && !refrain(first, c)) {
            doomed.push(c);
            continue;
          }
          seen.set(key, c);
        }
      }
      if (c.firstElementChild && (!s || s.chars >= REPEAT_MIN)) visit(c);
    }
  };
  visit(root);
  for (const d of doomed) d.remove();
}

/**
 * Blocks repeated within one flat text (a meal plan's "Drink 30 minutes before your workout" and
 * its recipes under each plan, a refrain) are its structure, not a second copy.
 */
function refrain(a: Element, b: Element): boolean {
  return a.parentElement === b.parentElement;
}

/**
 * True when `a` and `b` are the same part of two sibling items of one make (cards, coupons, posts)
 * that differ elsewhere: boilerplate every item carries, not a second copy of a block.
 */
function partOfItems(a: Element, b: Element, stats: StatsMap): boolean {
  const above = new Set<Element>();
  for (let p: Element | null = a; p; p = p.parentElement) above.add(p);
  let itemB: Element = b;
  while (itemB.parentElement && !above.has(itemB.parentElement)) itemB = itemB.parentElement;
  let itemA: Element = a;
  while (itemA.parentElement && itemA.parentElement !== itemB.parentElement) itemA = itemA.parentElement;
  if (itemA === a || itemB === b || makeOf(itemA) !== makeOf(itemB)) return false;
  // Items as long as each other are copies too (a layout's variants too big to compare whole).
  return (stats.get(itemA)?.chars ?? 0) !== (stats.get(itemB)?.chars ?? 0);
}

/** Cards of a grid: at least this many siblings of one make, each at most CARD_CHARS of text. */
const CARDS_MIN = 4;
const CARD_CHARS = 600;
/** Table rows and definition lists repeat values on purpose ("Yes", "Yes"). */
const NOT_CARDS = new Set(["tr", "tbody", "thead", "table", "dl", "dt", "dd"]);

/**
 * Cards that print their text twice: shop themes ship a card's name once over the image (shown
 * when it has none) and once under it, the regular and the sale price both, a link over the whole
 * card labelled with the name. A reader sees one; style sheets hide the other. Inside one card of
 * a grid, an element whose text equals that of an earlier element of the card (not one around it)
 * is such a copy and goes; nothing inside code does (an API reference's method sections read as
 * cards, and their examples repeat "Ok" on every line).
 */
export function dropCardCopies(root: Element, stats: StatsMap): void {
  const doomed: Element[] = [];
  for (const [el, s] of stats) {
    if (el.childElementCount < CARDS_MIN || s.chars === 0 || !root.contains(el)) continue;
    const makes = new Map<string, Element[]>();
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const cs = stats.get(c);
      if (!cs || cs.chars === 0 || cs.chars > CARD_CHARS || NOT_CARDS.has(tagOf(c)) || !c.querySelector("a[href]")) continue;
      const m = makeOf(c);
      const g = makes.get(m);
      if (g) g.push(c);
      else makes.set(m, [c]);
    }
    for (const cards of makes.values()) if (cards.length >= CARDS_MIN) for (const card of cards) cardCopies(card, doomed);
  }
  for (const d of doomed) d.remove();
}

function cardCopies(card: Element, doomed: Element[]): void {
  const seen = new Map<string, Element>();
  let skip: Element | null = null;
  for (const el of card.querySelectorAll("*")) {
    if (skip?.contains(el)) continue;
    // Code repeats on purpose, to its last token ("Ok" in every example of a method).
    if (REPEAT_TAGS.has(tagOf(el))) {
      skip = el;
      continue;
    }
    const key = (el.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase();
    // A lone symbol (the "$" set apart from a price's digits) is no copy of anything.
    if (!/[\p{L}\p{N}]/u.test(key)) continue;
    const first = seen.get(key);
    if (first && !first.contains(el) && !refrain(first, el)) {
      doomed.push(el);
      skip = el;
    } else if (!first) seen.set(key, el);
  }
}
