/**
 * A call-to-action box inside a story: the publisher's pitch set between or under the paragraphs
 * ("Want to win more jobs with less effort?", "Sign up and try it for 14 days free!", "Book a demo"),
 * a heading, a line or two and a button, in a block the theme names a call to action ("post-cta",
 * "blog-cta", "article--cta", "BlogStickyCta"). It reads as prose and escapes the button rules;
 * its name says what it is. A large block so named (a partner table, a list of offers) is left to
 * the other rules, and so is a button's own class ("cta-button": content/cleanup.ts).
 */
import { tagOf, textStats } from "./dom.ts";

/** "cta" as a word of a class ("post-cta", "blog-cta__heading", "cta-section"), not a button's. */
const CTA_WORD = /(^|[\s_-])cta(?![\s_-]*(button|btn|link)s?\b)([\s_-]|$)/;
/** The same word in a CSS module's camel case ("BlogStickyCta_cta__pqpvR", "ServiceRequestCta_root"). */
const CTA_CAMEL = /[a-z]Cta(?=[A-Z_\s-]|$)/;
/** A pitch is a heading, a line or two and a button; more is more than a pitch. */
const BOX_CHARS = 600;
/** Boxes with this many different texts are cards of the page, not pitches. */
const CARDS_MIN = 3;

/**
 * Removes the call-to-action boxes under `root` (an article's root). Three or more boxes saying
 * different things are not a pitch but the page's cards built with a page builder's call-to-action
 * widget (Elementor's "elementor-cta" as a listing's entries): then none goes.
 */
export function dropCtaBoxes(root: Element): void {
  const boxes: Element[] = [];
  const visit = (el: Element) => {
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
      const cls = c.getAttribute("class") ?? "";
      // The outermost block so named decides: its parts are not judged apart.
      if (cls && tagOf(c) !== "a" && (CTA_WORD.test(cls.toLowerCase()) || CTA_CAMEL.test(cls))) boxes.push(c);
      else if (c.firstElementChild) visit(c);
    }
  };
  visit(root);
  const texts = new Set(boxes.map((b) => (b.textContent ?? "").replace(/\s+/g, " ").trim()));
  if (texts.size >= CARDS_MIN) return;
  for (const b of boxes) if (pitch(b)) b.remove();
}

/** A short block that asks for an action: a link or a form, no table, no more than two paragraphs. */
function pitch(box: Element): boolean {
  if (textStats(box).chars > BOX_CHARS || box.querySelector("table, h1")) return false;
  if (!box.querySelector("a[href], form")) return false;
  return box.querySelectorAll("p").length <= 2;
}
