/**
 * Furniture told by more than a class word: a layer fixed over the screen, a commerce disclosure,
 * a modal however much prose it holds; and what a class word does not make furniture: the words of
 * a sentence.
 */
import { BLOCK_TAGS, TEXT_NODE, tagOf } from "./dom.ts";

const FIXED = /(^|\s)fixed(\s|$)/;
const INSET_0 = /(^|\s)inset-0(\s|$)/;

/**
 * A layer fixed over the whole screen (utility classes "fixed inset-0"): a modal, a drawer, a
 * "notify me when back in stock" takeover. The page's own text is never in one, except in an app
 * shell that fixes its whole frame, and that is a wrapper of most of the page (kept as such).
 */
export function overlay(ci: string): boolean {
  return INSET_0.test(ci) && FIXED.test(ci);
}

/**
 * A commerce disclosure: the note that the site earns from the links on the page ("We may earn a
 * commission...", "Advertiser Disclosure", "X is reader-supported"), set in an element the theme
 * names a disclosure, above or beside the story. It is the site's, not the story's. Themes also
 * call collapsible widgets "disclosure" (menus, filter panels, a product's description tabs), so
 * the name counts only on a short block that speaks of commissions, affiliates or advertisers; a
 * writer's own note in a paragraph of the post ("This post contains affiliate links") has no such
 * name and stays.
 */
const DISCLOSURE = /disclos/;
const DISCLOSURE_TEXT = /commission|compensat|affiliate|advertis|reader-supported|earn money/i;
/** A disclosure is a line or two; a longer "disclosure" block is a panel of the page. */
const DISCLOSURE_CHARS = 600;

/** True when `el` (class and id `ci`) is a commerce disclosure. */
export function commerceDisclosure(el: Element, ci: string): boolean {
  if (!DISCLOSURE.test(ci)) return false;
  const text = el.textContent ?? "";
  return text.length <= DISCLOSURE_CHARS && DISCLOSURE_TEXT.test(text);
}

/**
 * A modal or dialog the page opens over itself on demand, named so by a whole class or id word
 * ("modal", "modal-content", "block-modal", "legal-modal", "modal-dialog"): a consent notice, the
 * terms behind an offer's asterisk, a size guide. First-pass class rules let a block of much prose
 * pass as a wrapper of content whatever its name; a modal's prose is still not the page's. Only a
 * modal that holds the page's h1, main or article element is the page (a wrapper called "has-modal").
 */
const MODAL = /(^|[\s_-])(modals?|dialog)([\s_-]|$)/;

/** True when `el` (class and id `ci`) is a modal or dialog that does not hold the page. */
export function modalPanel(el: Element, ci: string): boolean {
  return MODAL.test(ci) && el.querySelector("h1, main, article, [role=main]") === null;
}

/**
 * A product's mock-up drawn in HTML on a landing page: an illustration or animation component
 * ("PageSection_illustration__P1Yb9", "PaymentsHeroAnimation", "WorkAnimated_…") that shows a fake
 * app screen, a chat or a checkout form with made-up issues, names and amounts. Its words are the
 * picture's, not the page's. Only a component's own name counts: a word run into "animation"
 * ("heroanimation") or "illustration"; a utility class ("animation--fade", "no-animation",
 * "animation-element") marks how a block of the page's own text comes in, and stays.
 */
const MOCKUP = /illustration|[a-z]animat(ion|ed)(?![a-z])/;

/** True when class and id `ci` name an illustration or animation component. */
export function mockup(ci: string): boolean {
  return MOCKUP.test(ci);
}

/** Text of its paragraph around an inline element for the element to be part of its prose. */
const PROSE_AROUND = 80;
const LETTER = /\p{L}/u;
const WORD = /\p{L}{2}/u;

/**
 * Words of a sentence, set in a link or span whose class names what it points to ("After <a
 * class="recommendation-inline-link">announcing your engagement</a>, you may ..."): an inline
 * element that words of its paragraph touch, with PROSE_AROUND characters of the paragraph around
 * it (`chars` counts an element's text). The words are the sentence's, whatever the class says. Not
 * a role's furniture (a footnote's tooltip), not a mark without words (a citation's "[12]"), not a
 * code block's spans ("hljs-comment"). WCXB: three articles up (4591 0.934 -> 0.942, 4880 0.983 ->
 * 0.991, 4007 0.992 -> 1.000), none down; without the three exclusions a footnote's tooltip,
 * citation numbers and code comments came back (0481 -0.012, 2020 -0.003, documentation 4397 -0.009).
 */
export function inSentence(el: Element, chars: (el: Element) => number): boolean {
  const parent = el.parentElement;
  if (!parent || BLOCK_TAGS.has(tagOf(el)) || el.hasAttribute("role")) return false;
  const before = el.previousSibling;
  const after = el.nextSibling;
  const touched =
    (before?.nodeType === TEXT_NODE && LETTER.test(before.nodeValue ?? "")) ||
    (after?.nodeType === TEXT_NODE && LETTER.test(after.nodeValue ?? ""));
  if (!touched || el.closest("pre, code")) return false;
  return chars(parent) - chars(el) >= PROSE_AROUND && WORD.test(el.textContent ?? "");
}
