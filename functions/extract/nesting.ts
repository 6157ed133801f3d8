/**
 * The depth a parsed page may nest elements to. A browser's parser stops nesting there: Chromium's
 * (HTMLConstructionSite, kMaximumHTMLParserDOMTreeDepth) puts a start tag met 512 elements deep
 * beside the last one instead of inside it. linkedom nests without end, and the extractor's walks
 * of the tree (scoring, cleanup, the renderers) recurse once or twice a level, so a page nested a
 * few thousand deep (hostile, or a broken template that never closes its divs) overflowed the stack
 * and its readable text was lost. Capped here as a browser would, every walk is bounded.
 */
export const MAX_DEPTH = 512;

/**
 * Flattens what lies deeper than `max` elements (<html> is the first): every element under one
 * `max - 1` deep becomes its child, in document order, so none lies deeper than `max`.
 */
export function capNesting(doc: Document, max = MAX_DEPTH): void {
  const root = doc.documentElement;
  if (!root) return;
  let el: Element | null = root;
  let depth = 1;
  while (el) {
    if (depth >= max - 1) flatten(el);
    else if (el.firstElementChild) {
      el = el.firstElementChild;
      depth++;
      continue;
    }
    // The next element in document order after el's subtree (iteratively: no recursion here either).
    while (el && el !== root && !el.nextElementSibling) {
      el = el.parentElement;
      depth--;
    }
    if (!el || el === root) return;
    el = el.nextElementSibling;
  }
}

/**
 * Makes every node under `el` its child, in document order: an element's children go right after
 * it, and are visited in turn. Each node moves once.
 */
function flatten(el: Element): void {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType !== 1 || !c.firstChild) continue;
    // One at a time: spread into one after(), a few hundred thousand children overflow the stack.
    let at: ChildNode = c as Element;
    for (const child of Array.from(c.childNodes)) {
      at.after(child);
      at = child;
    }
  }
}
