import { preText } from "./code.ts";
import { ELEMENT_NODE, isSkipped, isText } from "./dom.ts";
import { isInline, meetsMidWord } from "./seams.ts";
import { BLOCK_TAGS } from "./tags.ts";

// Structure travels through the walk as control characters that never occur in HTML text
// (the parser drops them), so whitespace collapsing is a pass over the whole string instead of a
// regular expression per text node: LINE ends a block, CELL ends a table cell, and a <pre> block
// waits outside the string behind PRE_OPEN index PRE_CLOSE.
const LINE = "\u0001";
const CELL = "\u0002";
const PRE_OPEN = "\u0003";
const PRE_CLOSE = "\u0004";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the structure markers described above
const CONTROL = /[\u0001-\u0004]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the structure markers described above
const SEPARATORS = / ?[\u0001\u0002][ \u0001\u0002]*/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the structure markers described above
const VERBATIM = /\u0003(\d+)\u0004/g;
// only real runs and non-space whitespace: replacing every single space would copy the whole text
const WHITESPACE = / \s+|[^\S ]\s*/g;

/** True when the text ending at parts[end] and the text starting at parts[start] meet mid-word. */
function runTogether(parts: string[], end: number, start: number, tag: string): boolean {
  let i = end;
  while (i >= 0 && parts[i] === "") i--;
  let j = start;
  while (j < parts.length && parts[j] === "") j++;
  const left = parts[i];
  const right = parts[j];
  return left !== undefined && right !== undefined && meetsMidWord(left, right, tag);
}

/**
 * Block-aware plain text of `root`: one line per block (paragraph, heading, list item, table row),
 * inline whitespace collapsed to single spaces, table cells separated by tabs, `<pre>` kept verbatim,
 * scripts, styles and other non-content elements left out. Used for `text_length` and by the
 * extraction benchmark, so it is one walk plus three passes over the result.
 */
export function toPlainText(root: Element): string {
  const parts: string[] = [];
  const verbatim: string[] = [];
  const walk = (node: Node): void => {
    // The part that ends the inline element just before this node, when nothing came between.
    let afterInline = -1;
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (isText(n)) {
        const v = n.nodeValue;
        if (v) {
          parts.push(v);
          afterInline = -1;
        }
        continue;
      }
      if (n.nodeType !== ELEMENT_NODE) continue;
      const el = n as Element;
      if (isSkipped(el)) continue;
      const tag = el.localName;
      if (isInline(tag)) {
        // Sibling inline elements that a stylesheet sets on lines of their own (a card's brand
        // then its name, a row of category links): words run together across the seam
        // ("La SportivaAragon") unless a space goes between them.
        const seam = parts.length;
        parts.push("");
        walk(el);
        if (afterInline >= 0 && parts.length > seam + 1 && runTogether(parts, afterInline, seam + 1, tag)) parts[seam] = " ";
        afterInline = parts.length > seam + 1 ? parts.length - 1 : afterInline;
        continue;
      }
      afterInline = -1;
      if (tag === "br") parts.push(LINE);
      else if (tag === "td" || tag === "th") {
        walk(el);
        parts.push(CELL);
      } else if (tag === "pre") {
        parts.push(`${LINE}${PRE_OPEN}${verbatim.length}${PRE_CLOSE}${LINE}`);
        verbatim.push(preText(el).replace(CONTROL, ""));
      } else if (BLOCK_TAGS.has(tag)) {
        parts.push(LINE);
        walk(el);
        parts.push(LINE);
      }
    }
  };
  walk(root);
  const text = parts
    .join("")
    .replace(WHITESPACE, " ")
    .replace(SEPARATORS, (run) => (run.includes(LINE) ? "\n" : "\t"))
    .trim();
  return verbatim.length === 0 ? text : text.replace(VERBATIM, (_, i: string) => verbatim[Number(i)] ?? "");
}
