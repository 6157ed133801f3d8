/**
 * Product pages: the buy box holds the product name (h1); the description and specifications
 * often sit in sections further down the page, outside it. The root is the smallest element
 * holding the name and the prose core, grown (on shop pages, not article-like ones) to the
 * highest ancestor whose added text is mostly prose. Purchase forms inside it go: options,
 * quantity, "add to cart".
 */

import { onlyMain, statsParent } from "./core.ts";
import { ELEMENT_NODE, visibleLength } from "./dom.ts";
import type { StatsMap } from "./score.ts";

/** A step up must add text that is at least this much prose, and few links. */
const GROW_PROSE = 0.5;
const GROW_LINKS = 0.2;

/** The smallest element holding both a product name (h1) and the prose core, grown when `grow`. */
export function productRoot(core: Element, best: Element, stats: StatsMap, grow: boolean): Element {
  let root: Element | null = null;
  for (const h1 of best.querySelectorAll("h1")) {
    let el: Element | null = core;
    while (el && el !== best && !el.contains(h1)) el = el.parentElement;
    if (el && (!root || root.contains(el))) root = el;
  }
  while (root && root !== best && !stats.has(root)) root = root.parentElement;
  return grow ? growProse(root ?? best, best, stats) : (root ?? best);
}

/**
 * The highest ancestor up to `limit` whose text beyond `start`'s is mostly prose with few links:
 * the description sections. Judged from `start` rather than step by step, since a step that adds
 * the gallery or a spec list (no prose) often lies between the buy box and the description below.
 * Growth stops at the page's one <main>: what a theme sets beside it is the site's, as for articles.
 */
function growProse(start: Element, limit: Element, stats: StatsMap): Element {
  const a = stats.get(start);
  if (!a) return start;
  let found = start;
  for (let el = statsParent(start, limit, stats); el; el = el === limit ? null : statsParent(el, limit, stats)) {
    if (onlyMain(found)) break;
    const b = stats.get(el);
    if (!b) break;
    const chars = b.chars - a.chars;
    // The sections' titles are neither prose nor furniture: the prose share is of the rest.
    const body = chars - (headingChars(el) - headingChars(start));
    if (chars === 0 || (body > 0 && b.prose - a.prose >= GROW_PROSE * body && b.linkChars - a.linkChars <= GROW_LINKS * chars))
      found = el;
  }
  return found;
}

/**
 * The buy box's purchase forms (option pickers, quantity): what they hold is not the description.
 * A fieldset is one too: themes render the option picker ("Color: Black / Copper" swatches) as a
 * fieldset of labelled radios outside the form that posts the order.
 */
export function dropBuyBox(root: Element, stats: StatsMap): void {
  const total = stats.get(root)?.chars ?? 0;
  for (const el of root.querySelectorAll("form, fieldset")) {
    const s = stats.get(el);
    // A form around the whole product (name, description) is the page's wrapper, not its controls.
    if (s && (s.prose > 0.5 * s.chars || s.chars > 0.3 * total)) continue;
    if (el.querySelector("h1")) continue;
    el.remove();
  }
}

/** Characters in the headings under `el`, counted as the stats count them. */
function headingChars(el: Element): number {
  let n = 0;
  for (const h of el.querySelectorAll("h1, h2, h3, h4, h5, h6")) n += visibleLength(h.textContent ?? "");
  return n;
}

/** A line just above the name may be its brand or kicker ("Audeze", "L'atelier Nawbar"): kept up to this length. */
const KICKER_CHARS = 80;

/**
 * Removes what a product root shows before the product's name (`name`, its h1) and before any
 * prose: badges, stock and seller notices, a gallery's labels ("Stock photo", "360° VIEW"), a
 * sale banner. The description starts after the name; a root whose prose starts before the name
 * (a description column left of the buy box) keeps all from that prose on, with the heading
 * right above it. The short line right above the name (a brand, a kicker) stays.
 */
export function trimProductHead(root: Element, stats: StatsMap, name: Element | null): void {
  if (!name || !root.contains(name)) return;
  const doomed: Element[] = [];
  const visit = (el: Element): void => {
    let before: Element | null = null;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (c.contains(name)) {
        const kicker = before && (stats.get(before)?.chars ?? 0) <= KICKER_CHARS && startsWith(c, name, stats);
        if (before && !kicker) doomed.push(before);
        if (c !== name) visit(c);
        return;
      }
      const s = stats.get(c);
      if (!s || s.chars === 0) continue;
      if (s.prose > 0) return;
      if (before) doomed.push(before);
      before = c;
    }
  };
  visit(root);
  for (const el of doomed) el.remove();
}

/** True when `name` is the first thing with text in `el`. */
function startsWith(el: Element, name: Element, stats: StatsMap): boolean {
  let at: Element | null = el;
  while (at && at !== name) {
    let next: Element | null = null;
    for (let c = at.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === ELEMENT_NODE && (c as Element).contains(name)) {
        next = c as Element;
        break;
      }
      const s = c.nodeType === ELEMENT_NODE ? stats.get(c as Element) : undefined;
      if (s ? s.chars > 0 : (c.textContent ?? "").trim() !== "") return false;
    }
    at = next;
  }
  return at === name;
}
