/**
 * Badges on the cards of a grid: the short flags a shop theme lays over or beside each item
 * ("Best seller", "New arrival", "Top seller"), in elements the theme classes as badges. They rank
 * or advertise the item, not name or describe it. A badge goes when its text is a few words that
 * BADGES_MIN badges of the root share (one flag printed on card after card); a badge that says
 * something of its own item only ("Clearance" on one card, "Limited run" on another) and a lone
 * element classed "badge" stay. Category and listing pages only: a reference page's "Read only"
 * and "Deprecated" flags describe what they mark.
 */
import { ELEMENT_NODE, TEXT_NODE, visibleLength } from "./dom.ts";

/** A badge says this much at most ("Free shipping on orders over $50" is no badge). */
const BADGE_CHARS = 30;
/** One flag on this many cards is the grid's. */
const BADGES_MIN = 3;
const BADGE_CLASS = /badge/i;

/** Removes the flags that three or more cards of the grid inside `root` share. */
export function dropBadges(root: Element): void {
  const groups = new Map<string, Element[]>();
  const visit = (el: Element) => {
    const cls = el.getAttribute("class");
    if (cls && BADGE_CLASS.test(cls)) {
      const n = textLength(el);
      if (n > 0 && n <= BADGE_CHARS) {
        const text = (el.textContent ?? "").replace(/\s+/g, " ").trim().toLowerCase();
        const group = groups.get(text);
        if (group) group.push(el);
        else groups.set(text, [el]);
      }
      return;
    }
    for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === ELEMENT_NODE) visit(c as Element);
  };
  visit(root);
  for (const group of groups.values()) if (group.length >= BADGES_MIN) for (const el of group) el.remove();
}

/** Visible characters of `el`'s text, counted up to just past BADGE_CHARS. */
function textLength(el: Element): number {
  let n = 0;
  const walk = (node: Node) => {
    for (let c = node.firstChild; c && n <= BADGE_CHARS; c = c.nextSibling) {
      if (c.nodeType === TEXT_NODE) n += visibleLength((c as Text).data);
      else if (c.nodeType === ELEMENT_NODE) walk(c);
    }
  };
  walk(el);
  return n;
}
