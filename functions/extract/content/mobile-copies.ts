/**
 * A phone layout's copy of a block the wide layout shows elsewhere: Bootstrap themes print a
 * product's name, an FAQ, an author's line or a menu item twice, once in an element hidden from a
 * breakpoint up ("d-block d-md-none", "d-lg-none") and once in the desktop's place. A reader sees
 * one; the extractor saw both. Such an element goes only when its words stand elsewhere in the
 * root: a phone-only block that says something of its own (a notice shown only on phones, the
 * mobile filter button) is not a copy, and an element shown again from a larger breakpoint up
 * ("d-sm-none d-md-block") is not phone-only.
 * A phone copy set in another shape (the desktop's guide as an accordion whose toggles add their
 * own titles) is compared by its paragraphs: it goes when those that stand elsewhere hold most of
 * its words (measured on WCXB, dev split: a collection page 0.633 -> 0.923 F1 and a service page
 * 0.884 -> 0.982, no page fell).
 */

/** Hidden from a breakpoint up: Bootstrap 4/5 display utilities. */
const HIDDEN_FROM = /(^|\s)d-(sm|md|lg|xl|xxl)-none(\s|$)/;
/** Shown again from a breakpoint up (or hidden at every width: the hidden-element rules' case). */
const SHOWN_AGAIN =
  /(^|\s)d-(none|(sm|md|lg|xl|xxl)-(block|flex|inline|inline-block|inline-flex|grid|table|table-cell|table-row|contents))(\s|$)/;
/** Fewer letters than this can stand anywhere ("Color", "Only a few left"). */
const COPY_MIN = 12;

/**
 * How much text the rule may search, in passes over the root's text: each search for a copy's
 * words reads up to the whole text, so a page of thousands of phone-only blocks would cost their
 * number times its length (8,000 took 1.5 s). On the WCXB dev split a page needs at most 26
 * passes; past the budget the remaining copies stay, as a page without the rule would show them.
 */
const SEARCH_PASSES = 256;

const key = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** The text searches a page may still make, in characters read. */
interface Budget {
  left: number;
}

/** Charges one search of `text` to `budget`; false once it is spent. */
function charge(budget: Budget, text: string): boolean {
  budget.left -= text.length + 1;
  return budget.left >= 0;
}

export function dropMobileCopies(root: Element): void {
  const copies: Element[] = [];
  for (const el of root.querySelectorAll("[class*='-none']")) {
    const cls = el.getAttribute("class") ?? "";
    if (!HIDDEN_FROM.test(cls) || SHOWN_AGAIN.test(cls)) continue;
    // In document order a copy's descendants come before anything after it, and copies never
    // nest: only the last one taken can hold this one (checking them all made n copies cost n²).
    if (copies.at(-1)?.contains(el)) continue;
    copies.push(el);
  }
  if (copies.length === 0) return;
  const all = key(root.textContent ?? "");
  const budget: Budget = { left: SEARCH_PASSES * (all.length + 1) };
  let rest: string | undefined;
  for (const el of copies) {
    const k = key(el.textContent ?? "");
    if (k.length < COPY_MIN) continue;
    if (!charge(budget, all)) return;
    const first = all.indexOf(k);
    // Its own words are one occurrence: a copy needs a second.
    if (first >= 0 && all.indexOf(k, first + 1) >= 0) el.remove();
    else {
      rest ??= textOutside(root, new Set(copies));
      if (copiedByParts(el, k.length, rest, budget)) el.remove();
      if (budget.left < 0) return;
    }
  }
}

/** Blocks whose words are compared one by one: paragraphs, list items, headings, cells. */
const PART_TAGS = new Set(["p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "dd", "dt", "blockquote"]);
/** The share of a copy's words that must stand elsewhere when it is compared by parts. */
const PARTS_SHARE = 0.8;

/** The root's text outside the given elements, keyed (one walk, whatever their number). */
function textOutside(root: Element, skip: Set<Element>): string {
  const out: string[] = [];
  const collect = (n: Element) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out.push((c as Text).data);
      else if (c.nodeType === 1 && !skip.has(c as Element)) collect(c as Element);
    }
  };
  collect(root);
  return key(out.join(" "));
}

/**
 * A phone layout that sets the same text in another shape (an FAQ as an accordion, whose
 * toggles add their titles; a desktop section's headings dropped): its whole text stands nowhere
 * else, but its paragraphs do. It is a copy when the blocks whose words stand in `rest` (the
 * root's text outside every phone-only block: the wide layout) hold most of its words (`total`),
 * and the budget lasts to tell.
 */
function copiedByParts(el: Element, total: number, rest: string, budget: Budget): boolean {
  let copied = 0;
  for (const part of el.querySelectorAll("*")) {
    if (!PART_TAGS.has(part.localName)) continue;
    const k = key(part.textContent ?? "");
    if (k.length < COPY_MIN) continue;
    // Out of budget: not known to be a copy, so it stays.
    if (!charge(budget, rest)) return false;
    if (rest.includes(k)) copied += k.length;
  }
  return copied >= PARTS_SHARE * total;
}
