import { absoluteUrl, collapseWhitespace, ELEMENT_NODE, isFragmentOnly, isSkipped, isText, textRun, visibleText } from "./dom.ts";
import { imageUrl } from "./images.ts";
import { codeSpan, escapeText, escapeTitle, escapeUrl } from "./markdown-escape.ts";
import { BLOCK_TAGS } from "./tags.ts";

/** Hard line breaks travel through inline rendering as this character; whitespace is collapsed before. */
export const BREAK = "\n";

/**
 * Renders inline content to Markdown. Whitespace is collapsed to single spaces but not trimmed (the
 * paragraph does that once); block elements met here (a card inside a link, a list inside a table
 * cell) are flattened into the line with spaces around them.
 */
export class InlineRenderer {
  readonly base: string;
  private bold = 0;
  private italic = 0;
  private strike = 0;
  private link = 0;

  constructor(base: string) {
    this.base = base;
  }

  /** A text node's value, whitespace collapsed and escaped. */
  text(value: string | null): string {
    return value ? escapeText(collapseWhitespace(value)) : "";
  }

  children(node: Node): string {
    let out = "";
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (isText(n)) {
        const run = textRun(n);
        out += this.text(run.text);
        n = run.last;
      } else if (n.nodeType === ELEMENT_NODE) out += this.element(n as Element);
    }
    return out;
  }

  element(el: Element): string {
    if (isSkipped(el)) return "";
    switch (el.localName) {
      case "br":
        return BREAK;
      case "img":
        return this.image(el);
      case "a":
        return this.anchor(el);
      case "b":
      case "strong":
        return this.wrap(el, "**", "bold");
      case "em":
      case "i":
        return this.wrap(el, "*", "italic");
      case "s":
      case "del":
      case "strike":
        return this.wrap(el, "~~", "strike");
      case "code":
      case "kbd":
      case "samp":
      case "tt":
      case "pre":
        return codeSpan(collapseWhitespace(visibleText(el)).trim());
      default:
        return BLOCK_TAGS.has(el.localName) ? ` ${this.children(el)} ` : this.children(el);
    }
  }

  private wrap(el: Element, mark: string, kind: "bold" | "italic" | "strike"): string {
    // nested or repeated emphasis (<b><strong>x</strong></b>) is marked once
    if (this[kind] > 0) return this.children(el);
    this[kind]++;
    const inner = this.children(el);
    this[kind]--;
    const core = inner.trim();
    if (core === "") return inner;
    // whitespace at the edges moves outside: "** x**" would not be emphasis
    const lead = inner.length > 0 && /\s/.test(inner[0] ?? "") ? " " : "";
    const trail = /\s$/.test(inner) ? " " : "";
    return `${lead}${mark}${core.replace(/\n/g, " ")}${mark}${trail}`;
  }

  private anchor(el: Element): string {
    if (this.link > 0) return this.children(el);
    this.link++;
    const inner = collapseWhitespace(this.children(el));
    this.link--;
    const text = inner.trim();
    if (text === "") return inner;
    const href = el.getAttribute("href");
    const url = isFragmentOnly(href) ? null : absoluteUrl(href, this.base);
    if (url === null) return inner;
    const title = el.getAttribute("title");
    const lead = inner.startsWith(" ") ? " " : "";
    const trail = inner.endsWith(" ") ? " " : "";
    return `${lead}[${text}](${escapeUrl(url)}${titlePart(title, text)})${trail}`;
  }

  /** `![alt](url)`; an image without an http(s) URL (a `data:` image) leaves only its alt text. */
  image(img: Element): string {
    const alt = escapeText(collapseWhitespace(img.getAttribute("alt") ?? "").trim());
    const url = imageUrl(img, this.base);
    if (url === null) return alt;
    const title = img.getAttribute("title");
    return `![${alt}](${escapeUrl(url)}${titlePart(title, alt)})`;
  }
}

/** A title worth keeping: present and not a repeat of the (escaped) text it would annotate. */
function titlePart(title: string | null, text: string): string {
  const t = title ? collapseWhitespace(title).trim() : "";
  return t === "" || escapeText(t) === text ? "" : escapeTitle(t);
}
