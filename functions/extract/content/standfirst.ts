/**
 * Standfirsts: the one- or two-sentence summary a news page prints between the headline and the
 * story ("The government has unveiled a plan to…"), in a block its template names for it (dek,
 * standfirst, summary, abstract, subhead, lead, intro). The template fills it from the same field
 * as the page's description meta, so the block says again what the description says and the story
 * starts after it. A lead paragraph the description was cut from is a plain <p> of the story (no
 * such class) and stays; so does a summary block that differs from the description.
 */
import { textStats } from "./dom.ts";

/** Class words of a standfirst's block (or its wrapper): whole parts of a class name. */
const DEK_CLASS =
  /(^|[-_\s])(dek|deck|standfirst|strapline|summary|abstract|subhead|sub-?title|lead|lede|intro|excerpt|quote)([-_\s]|$)/i;
const W = /[\p{L}\p{N}_]+/gu;
const norm = (s: string) => (s.toLowerCase().match(W) ?? []).join(" ");
/** A description shorter than this is a label, not a summary. */
const DESC_MIN = 40;

/** The page's descriptions (description, og: and twitter: metas), normalised to words. */
function descriptions(document: Document): string[] {
  const out: string[] = [];
  for (const m of document.querySelectorAll(
    'meta[name="description"], meta[property="og:description"], meta[name="twitter:description"]',
  )) {
    const d = norm(m.getAttribute("content") ?? "");
    if (d.length >= DESC_MIN && !out.includes(d)) out.push(d);
  }
  return out;
}

/** Removes the standfirst inside `root`: a dek-classed block ahead of the story that repeats the description. */
export function dropStandfirst(root: Element): void {
  const descs = descriptions(root.ownerDocument);
  if (descs.length === 0) return;
  // The story's first long paragraph: the standfirst comes before it.
  let story: Element | null = null;
  for (const p of root.querySelectorAll("p")) {
    if (textStats(p).chars >= 200) {
      story = p;
      break;
    }
  }
  if (!story) return;
  for (const el of root.querySelectorAll("[class]")) {
    if (el === story || el.contains(story)) continue;
    // Document order: the first element that follows the story ends the head.
    if (story.compareDocumentPosition(el) & 4) break;
    const dek = DEK_CLASS.test(el.getAttribute("class") ?? "") || DEK_CLASS.test(el.parentElement?.getAttribute("class") ?? "");
    if (!dek) continue;
    const t = norm(el.textContent ?? "");
    if (t.length >= DESC_MIN && descs.includes(t)) {
      el.remove();
      return;
    }
  }
}
