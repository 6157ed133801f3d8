/**
 * Field labels of a grid's cards: a shop theme that marks each card up as a description list
 * (<dt>Brand</dt><dd>Topo Athletic</dd><dt>Price</dt><dd>$108</dd>) prints the same labels on
 * every card. The values say what the item is; the labels, a hundred times over, say nothing
 * (screen readers read them, the page's style often hides them). A <dt> goes when its text is
 * a few words that LABELS_MIN lists of two or more fields share; a glossary's terms, each said
 * once, and a lone list stay.
 */
import { visibleLength } from "./dom.ts";

/** A field's label says this much at most ("Product Name", "Rating"). */
const LABEL_CHARS = 30;
/** One label in this many lists marks the fields of a grid's cards. */
const LABELS_MIN = 3;

/** Removes the labels repeated on a grid's cards inside `root`. */
export function dropFieldLabels(root: Element): void {
  const groups = new Map<string, Element[]>();
  // Each list's <dt>s counted once, not once per <dt> (a glossary of n terms cost n² otherwise).
  const terms = new Map<Element, number>();
  const termsOf = (list: Element) => {
    let n = terms.get(list);
    if (n === undefined) {
      n = list.querySelectorAll("dt").length;
      terms.set(list, n);
    }
    return n;
  };
  for (const dt of root.querySelectorAll("dt")) {
    const text = (dt.textContent ?? "").replace(/\s+/g, " ").trim();
    if (text === "" || visibleLength(text) > LABEL_CHARS) continue;
    const list = dt.parentElement;
    if (!list || termsOf(list) < 2) continue;
    const group = groups.get(text);
    if (group) group.push(dt);
    else groups.set(text, [dt]);
  }
  for (const group of groups.values()) {
    if (new Set(group.map((dt) => dt.parentElement)).size < LABELS_MIN) continue;
    for (const dt of group) dt.remove();
  }
}
