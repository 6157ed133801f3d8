/**
 * Page builders' text widgets (Elementor's "elementor-widget-text-editor", WordPress's
 * "widget_text"): the pruning takes "widget" for furniture, yet a page built of such widgets has
 * its paragraphs in them.
 */
import { classAndId, TEXT_NODE, tagOf, textStats } from "./dom.ts";

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
    if (e.childElementCount !== 1) return false;
    for (let n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === TEXT_NODE && (n as Text).data.trim() !== "") return false;
    e = e.firstElementChild;
  }
  return false;
}

function amongProse(el: Element): boolean {
  if (el.closest('[class*="hidden-mobile"], [class*="hidden-phone"]')) return false;
  let group = el.parentElement;
  while (group && group.childElementCount === 1) group = group.parentElement;
  if (!group) return true;
  const { chars, linkChars } = textStats(group);
  return linkChars <= 0.3 * chars;
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
