/**
 * The depth a parsed page may nest elements to (<html> is 1). A browser's parser stops nesting
 * there: Chromium's (HTMLConstructionSite, kMaximumHTMLParserDOMTreeDepth = 512) attaches a node
 * met with more than 512 elements open to the current element's parent instead of to it, so
 * elements nest at most 513 deep. linkedom nests without end, and the extractor's walks of the tree
 * (scoring, cleanup, the renderers) recurse once or twice a level, so a page nested a few thousand
 * deep (hostile, or a broken template that never closes its divs) overflowed the stack and its
 * readable text was lost. Capped here as Chromium caps it (the same tree, tested against it), every
 * walk is bounded.
 */
export const MAX_DEPTH = 513;

/**
 * Flattens what lies deeper than `max` elements (<html> is the first): every element under one
 * `max - 1` deep becomes its child, in document order, so none lies deeper than `max`; text stays
 * in the element that held it (flatten()).
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
 * Makes every element under `el` its child, in document order: an element's element children go
 * right after it, and are visited in turn; its text (and comments) stay in it. So Chromium builds
 * it: past the depth limit an element is attached beside the current one instead of inside it, and
 * text goes into the current element (a heading or a paragraph keeps its words; text after a
 * nested element's end lands in the element before it, as the browser shows it). Each node moves once.
 */
function flatten(el: Element): void {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
    // One at a time: spread into one after(), a few hundred thousand children overflow the stack.
    // The next one taken before each move: asking c for its first element child again would read
    // past the text left in it each time.
    let at: Element = c;
    for (let child = c.firstElementChild; child; ) {
      const next: Element | null = child.nextElementSibling;
      at.after(child);
      at = child;
      child = next;
    }
  }
}
