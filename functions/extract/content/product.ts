/**
 * Product pages: the buy box holds the product name (h1); the description and specifications
 * often sit in sections further down the page, outside it. The root is the smallest element
 * holding the name and the prose core, grown (on shop pages, not article-like ones) while each
 * step adds mostly prose. Purchase forms inside it go: options, quantity, "add to cart".
 */

import { statsParent } from "./core.ts";
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

/** Walks up towards `limit` while each step adds mostly prose with few links (description sections). */
function growProse(start: Element, limit: Element, stats: StatsMap): Element {
  let el = start;
  while (el !== limit) {
    const parent = statsParent(el, limit, stats);
    const a = stats.get(el);
    const b = parent ? stats.get(parent) : undefined;
    if (!parent || !a || !b) break;
    const chars = b.chars - a.chars;
    if (chars > 0 && (b.prose - a.prose < GROW_PROSE * chars || b.linkChars - a.linkChars > GROW_LINKS * chars)) break;
    el = parent;
  }
  return el;
}

/** The buy box's purchase forms (option pickers, quantity): what they hold is not the description. */
export function dropBuyBox(root: Element, stats: StatsMap): void {
  const total = stats.get(root)?.chars ?? 0;
  for (const el of root.querySelectorAll("form")) {
    const s = stats.get(el);
    // A form around the whole product (name, description) is the page's wrapper, not its controls.
    if (s && (s.prose > 0.5 * s.chars || s.chars > 0.3 * total)) continue;
    if (el.querySelector("h1")) continue;
    el.remove();
  }
}
