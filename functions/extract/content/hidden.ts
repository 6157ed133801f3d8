/**
 * Hidden elements: what the page hides (the `hidden` attribute, `aria-hidden`, an inline
 * `display: none`, hiding classes read as on a desktop, and the classes of links shown only on
 * keyboard focus: "sr-only-focusable", "visually-hidden-focusable"; Webflow's "w-condition-invisible",
 * which its stylesheet sets to display: none when a CMS condition fails), the tab panels a script
 * hides beside the open one, and showing what is kept. Which hidden elements stay is
 * pruneDocument's decision.
 */
export const HIDDEN_STYLE = /display\s*:\s*none|visibility\s*:\s*hidden/i;
const SHOWN_FROM = /(^|\s)(sm|md|lg|xl|2xl):(block|flex|grid|inline|inline-block|inline-flex|table|contents)(\s|$)/;
export const MOBILE_ONLY = /(^|\s)(md|lg):hidden(\s|$)/;
const HIDDEN_CLASS =
  /(^|\s)(sr-only|sr-only-focusable|screen-reader-text|visually-hidden|visually-hidden-focusable|visuallyhidden|skip-link|hidden|hide|is-hidden|invisible|u-hidden|w-condition-invisible)(\s|$)/;

export function isHidden(el: Element): boolean {
  if (el.hasAttribute("hidden") || (el.getAttribute("aria-hidden") === "true" && !redundantLink(el))) return true;
  const style = el.getAttribute("style");
  if (style && HIDDEN_STYLE.test(style)) return true;
  // linkedom builds the class string on each read: only read it when there is one.
  if (!el.hasAttribute("class")) return false;
  const cls = el.getAttribute("class");
  // Read as on a desktop: "hidden md:block" is shown there, "md:hidden" is the mobile layout's copy.
  if (cls === null) return false;
  if (HIDDEN_CLASS.test(cls.toLowerCase())) return !SHOWN_FROM.test(cls);
  return MOBILE_ONLY.test(cls) && !SHOWN_FROM.test(cls);
}

/** A teaser's excerpt: this many characters at least, ending a sentence. */
const EXCERPT_MIN = 80;
const SENTENCE_END = /[.!?]["'”’)]?$/;

/**
 * A link hidden from screen readers and taken out of the tab order (aria-hidden, tabindex -1) whose
 * text is a sentence: a card's excerpt linked again beside its linked title, which is all the
 * reader is told. The eye sees it (aria-hidden says nothing of visibility). A short one (a label,
 * a footnote's number) or a name without a sentence's end (a carousel's product title) is a copy of
 * what is shown elsewhere and stays hidden.
 */
function redundantLink(el: Element): boolean {
  if (el.localName !== "a" || el.getAttribute("tabindex") !== "-1") return false;
  const text = (el.textContent ?? "").replace(/\s+/g, " ").trim();
  return text.length >= EXCERPT_MIN && SENTENCE_END.test(text);
}

/** Class words of a tab's panel: "tab-pane", "tabs__panel", "tab-content", "tabpanel". */
const TAB_CLASS = /(^|[\s_-])tabs?([\s_-]|$)|tab-?(pane|panel|content|body)|tabpanel/i;

/**
 * A tab's panel hidden until its tab is clicked, by a script rather than aria-controls: an
 * element whose class names a tab panel beside a shown sibling of the same class (the open tab).
 * A product page's "Specs" tab beside its open "Overview" is the page's content.
 */
export function tabPane(h: Element): boolean {
  const cls = h.getAttribute("class");
  if (!cls || !TAB_CLASS.test(cls)) return false;
  for (let s = h.parentElement?.firstElementChild; s; s = s.nextElementSibling)
    if (s !== h && s.getAttribute("class") === cls && !isHidden(s)) return true;
  return false;
}

/** A question's length at most: one line a reader clicks to open its answer. */
const QUESTION_CHARS = 200;

/**
 * An FAQ's answer collapsed under its question by a script, without a button or aria-controls to
 * tell it ("<div>What is pet insurance?</div><div style="visibility:hidden">Pet insurance helps…</div>"):
 * the hidden block right after a short line that asks a question. A link or a list before it (a
 * breadcrumb whose last crumb is the thread's question) asks nothing: the block stays hidden.
 */
export function collapsedAnswer(h: Element): boolean {
  const q = h.previousElementSibling;
  if (!q || q.tagName === "UL" || q.tagName === "OL" || q.tagName === "NAV" || q.querySelector("a")) return false;
  const asked = (q.textContent ?? "").replace(/\s+/g, " ").trim();
  return asked.length > 0 && asked.length <= QUESTION_CHARS && asked.endsWith("?");
}

/** Kept hidden content is shown: the renderers leave hidden elements out. */
export function unhide(el: Element): void {
  el.removeAttribute("hidden");
  el.removeAttribute("aria-hidden");
  el.removeAttribute("style");
}

/** Classes that clip text out of sight for screen readers only. */
const READER_ONLY = /(^|\s)(sr-only|screen-reader-text|visually-hidden|visuallyhidden)(\s|$)/;

/**
 * A screen reader's text beside what the eye is shown in its place (aria-hidden): a sale price
 * struck and new for the eye, "Original price was: $30.00." for the reader. Both are hidden, one
 * from each; the reader's text is kept so the datum is said once.
 */
export function readerText(el: Element): boolean {
  if (!READER_ONLY.test(el.getAttribute("class") ?? "")) return false;
  const shown = (s: Element | null) => s?.getAttribute("aria-hidden") === "true" && (s.textContent ?? "").trim() !== "";
  return shown(el.previousElementSibling) || shown(el.nextElementSibling);
}
