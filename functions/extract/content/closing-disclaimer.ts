/**
 * The disclaimer a site prints under every article: a block opened by the word as its label
 * ("Disclaimer", "Disclaimer:", "* Disclaimer: This blog post is not intended to replace the advice
 * of a medical professional", "Important disclosures") and the fine print after it, closing the
 * text. It speaks for the site (not advice, no duty of care, see the terms), not of the story, and
 * is set in blocks no class names (a heading and paragraphs, a bold label inside the paragraph).
 * It goes when it is the article's last words: the label opens a block, at most DISCLAIMER_CHARS
 * of text follow from it to the end, and an article's worth of text comes before it. A paragraph
 * that speaks of disclaimers ("The disclaimer on the form..."), a section of the story headed so
 * with more text after it, and a short page that is nothing but the notice stay.
 */

import { tagOf, textStats } from "./dom.ts";

/** A label: the word alone, or followed by a colon or dash and the notice. */
const LABEL =
  /^[\s*†‡]*(legal |medical |financial |important |general |editorial )?(disclaimers?|disclosures?)(\s*\(s\))?\s*([:：—–-]|$)/i;
/** What such a notice says: the page is no advice, the site is paid for links. */
const BOILERPLATE =
  /\b(informational|educational|general information) purposes\b|\bnot (intended|meant) (to|as|for)\b|\b(legal|medical|financial|professional|investment|tax) advice\b|\bsubstitute for\b|\bdoes not constitute\b|\bno (responsibility|liability)\b|\bnot (be )?(construed|relied)\b|\bcommissions?\b|\baffiliate (links?|marketer|program|partner)|\bqualifying purchases\b/i;
/** Text from the label to the end of the article above which the block is a section of it. */
const DISCLAIMER_CHARS = 1500;
/** Text the article holds before the notice for it to close an article. */
const STORY_CHARS = 1500;

/** Blocks of running text: a label inside one ("...looks like. Disclaimer: ...") is part of its paragraph. */
const TEXT_BLOCKS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "li",
  "dt",
  "dd",
  "td",
  "th",
  "span",
  "a",
  "em",
  "strong",
  "b",
  "i",
  "small",
  "label",
  "font",
]);

const norm = (el: Element) => (el.textContent ?? "").replace(/\s+/g, " ").trim();

/**
 * The elements from a closing disclaimer's label to the end of `el` (the label's block and its
 * siblings after it), searched from the end within `budget` characters; null when there is none.
 */
function closingDisclaimer(el: Element, budget: number): Element[] | null {
  const after: Element[] = [];
  for (let c = el.lastElementChild; c; c = c.previousElementSibling) {
    const text = norm(c);
    if (text.length === 0) continue;
    if (LABEL.test(text) && text.length <= budget) return [c, ...after];
    // The label may open a block inside this one (a heading over the notice's paragraphs, the
    // notice under the article's last paragraph in one container).
    const inner = c.firstElementChild && !TEXT_BLOCKS.has(tagOf(c)) ? closingDisclaimer(c, budget) : null;
    if (inner) return [...inner, ...after];
    if (text.length > budget) return null;
    budget -= text.length;
    after.unshift(c);
  }
  return null;
}

/** Removes the disclaimer that closes the article inside `root`, if any. */
export function dropClosingDisclaimer(root: Element): void {
  const doomed = closingDisclaimer(root, DISCLAIMER_CHARS);
  if (!doomed) return;
  const total = textStats(root).chars;
  let chars = 0;
  for (const d of doomed) chars += textStats(d).chars;
  if (total - chars < STORY_CHARS) return;
  if (!BOILERPLATE.test(doomed.map((d) => d.textContent ?? "").join(" "))) return;
  for (const d of doomed) d.remove();
}
