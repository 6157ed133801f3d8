/**
 * Page builders' text widgets (Elementor's "elementor-widget-text-editor", WordPress's
 * "widget_text"): the pruning takes "widget" for furniture, yet a page built of such widgets has
 * its paragraphs in them.
 */
import { classAndId, hasOneChild, TEXT_NODE, tagOf, textStats } from "./dom.ts";

/** A page builder's text widget: "elementor-widget-text-editor", WordPress's "widget_text". */
const TEXT_WIDGET = /(^|[\s_-])widget[-_]text([\s_-]|$)/;
/** A page whose text is set in page-builder text widgets has at least this many short ones. */
const TEXT_WIDGETS = 3;

/**
 * A page builder's text widget around one short paragraph without a link (a chain of single
 * wrappers down to the <p>): "widget" makes it weak furniture, yet on a page built of such widgets
 * they are the page's paragraphs. Not when its class says more than "widget" (an author widget),
 * when it sits in a column hidden on phones (a desktop side column of calls to action and
 * testimonials), or when the group it sits in is mostly links (a posts list, a menu).
 */
export function textWidget(el: Element, ci: string, weak: (ci: string) => boolean): boolean {
  if (!TEXT_WIDGET.test(ci)) return false;
  const rest = ci.split(/\s+/).filter((c) => !c.includes("widget"));
  if (weak(rest.join(" "))) return false;
  let e: Element | null = el;
  for (let depth = 0; e && depth <= 4; depth++) {
    if (e !== el && tagOf(e) === "p") return e.querySelector("a") === null && amongProse(el);
    if (!hasOneChild(e)) return false;
    for (let n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === TEXT_NODE && (n as Text).data.trim() !== "") return false;
    e = e.firstElementChild;
  }
  return false;
}

function amongProse(el: Element): boolean {
  if (el.closest('[class*="hidden-mobile"], [class*="hidden-phone"]')) return false;
  let group = el.parentElement;
  while (group && hasOneChild(group)) group = group.parentElement;
  if (!group) return true;
  const { chars, linkChars } = textStats(group);
  return linkChars <= 0.3 * chars;
}

/** Elementor's feature cards: an icon or an image over a heading and a short paragraph. */
const FEATURE_BOX = /(^|\s)elementor-widget-(icon|image)-box(\s|$)/;
/** Elementor's word for every block it places ("elementor-widget", "elementor-widget__width-initial"). */
const BUILDER_WORD = /(^|[\s_])elementor-widget(?=[\s_]|$)/g;

/**
 * The class names of `ci` less the page builder's own word for a block when the block is a feature
 * card. Elementor classes every block "elementor-widget", which reads as a sidebar's widget; its
 * icon and image boxes are a service page's features ("Greater brand visibility" and two lines on
 * it), short blocks that pruning then took for furniture. WCXB (1,497 pages): one Elementor service
 * page with eleven such cards, F1 0.721 to 0.984; no other page moved.
 */
export function featureBoxNames(ci: string): string {
  return FEATURE_BOX.test(ci) ? ci.replace(BUILDER_WORD, "$1") : ci;
}

/**
 * Whether the page is built of text widgets: one alone (a listing's intro line) is not enough, and
 * keeping it would make it the page's prose core over the list it introduces.
 */
export function builtOfTextWidgets(body: Element, weak: (ci: string) => boolean): boolean {
  let n = 0;
  for (const el of body.querySelectorAll('[class*="widget"]'))
    if (textWidget(el, classAndId(el), weak) && ++n >= TEXT_WIDGETS) return true;
  return false;
}
