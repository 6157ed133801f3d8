import { ELEMENT_NODE, isSkipped, isText } from "./dom.ts";
import { BLOCK_TAGS } from "./tags.ts";

/**
 * Words at the seam of two sibling inline elements that a stylesheet sets apart on the page (a
 * card's brand then its name, "La Sportiva" + "Aragon"; a row of category links): without a space
 * between them the text reads "La SportivaAragon". A seam is a lower-case letter or a digit, then
 * an upper-case letter ("SportivaAragon", "$108MSRP"), or a capital then a capitalised word
 * ("SQLData"), or a lower-case word then a number in an element of its own (a spec's name and
 * value, "Number of Pages" + "240 Pages"; "5 available" + "1 sold") unless the number is a
 * superscript or subscript ("12 m<sup>2</sup>"). Text beside an inline element ("<b>i</b>Phone",
 * "H<sub>2</sub>O") is no seam.
 */
const SEAM_LOWER = /[\p{Ll}\p{N}]$/u;
const SEAM_UPPER = /\p{Lu}$/u;
const NEXT_UPPER = /^\p{Lu}/u;
const NEXT_WORD = /^\p{Lu}\p{Ll}/u;
const WORD_END = /\p{Ll}$/u;
const NEXT_NUMBER = /^\p{N}/u;

/** True when text ending with `left` and text starting with `right` (in a `tag`) would meet mid-word. */
export function meetsMidWord(left: string, right: string, tag: string): boolean {
  if (WORD_END.test(left) && NEXT_NUMBER.test(right)) return tag !== "sup" && tag !== "sub";
  return SEAM_LOWER.test(left) ? NEXT_UPPER.test(right) : SEAM_UPPER.test(left) && NEXT_WORD.test(right);
}

/** Inline for the seams: not a block, a line break, a table cell or preformatted text. */
export function isInline(tag: string): boolean {
  return tag !== "br" && tag !== "td" && tag !== "th" && tag !== "pre" && !BLOCK_TAGS.has(tag);
}

/**
 * Puts a space (a text node) at every seam under `root`, so the rendered formats (Markdown, HTML,
 * the JSON tree) read the words apart as the plain text does (plain-text.ts finds the same seams
 * in its own walk).
 */
export function spaceSeams(root: Element): void {
  const document = root.ownerDocument;
  // Returns the node's visible text (dom.ts's visibleText), spaces put in included: each inline
  // element's text is its walk's, not read again (which cost every level of a chain of inline
  // elements the whole of what lies under it).
  const walk = (node: Element): string => {
    // The inline element just before, with nothing visible between it and the next one.
    let before: string | null = null;
    let out = "";
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (isText(n)) {
        if (n.nodeValue) before = null;
        out += n.nodeValue ?? "";
        continue;
      }
      if (n.nodeType !== ELEMENT_NODE || isSkipped(n as Element)) continue;
      const el = n as Element;
      const inner = walk(el);
      const text = el.localName === "br" ? " " : inner;
      if (!isInline(el.localName)) {
        before = null;
        out += text;
        continue;
      }
      if (text === "") continue;
      if (before !== null && meetsMidWord(before, text, el.localName)) {
        node.insertBefore(document.createTextNode(" "), el);
        out += " ";
      }
      out += text;
      before = text;
    }
    return out;
  };
  walk(root);
}
