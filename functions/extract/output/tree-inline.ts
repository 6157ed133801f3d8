import {
  absoluteUrl,
  CDATA_SECTION_NODE,
  collapseWhitespace,
  ELEMENT_NODE,
  isFragmentOnly,
  isSkipped,
  TEXT_NODE,
  visibleText,
} from "./dom.ts";
import { imageUrl } from "./images.ts";
import { BLOCK_TAGS } from "./tags.ts";
import type { DocImage, DocInline, DocMark, DocText } from "./tree-schema.ts";

const MARK_ORDER: readonly DocMark[] = ["bold", "italic", "code", "strike"];
const MARK_OF: Readonly<Record<string, DocMark>> = {
  b: "bold",
  strong: "bold",
  em: "italic",
  i: "italic",
  s: "strike",
  del: "strike",
  strike: "strike",
  code: "code",
  kbd: "code",
  samp: "code",
  tt: "code",
};

function withMark(marks: readonly DocMark[], mark: DocMark): DocMark[] {
  return marks.includes(mark) ? [...marks] : MARK_ORDER.filter((m) => m === mark || marks.includes(m));
}

function text(value: string, marks: readonly DocMark[]): DocText {
  return marks.length > 0 ? { type: "text", text: value, marks: [...marks] } : { type: "text", text: value };
}

/** An image node, or null when it has no http(s) URL (a `data:` image). */
export function imageNode(img: Element, base: string): DocImage | null {
  const src = imageUrl(img, base);
  if (src === null) return null;
  const node: DocImage = { type: "image", src, alt: collapseWhitespace(img.getAttribute("alt") ?? "").trim() };
  const title = img.getAttribute("title")?.trim();
  if (title) node.title = title;
  return node;
}

/** Raw inline nodes of one element or text node (whitespace not yet normalised; see `normalizeInline`). */
export function inlineNodes(node: Node, base: string, marks: readonly DocMark[], out: DocInline[]): void {
  if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
    if (node.nodeValue) out.push(text(node.nodeValue, marks));
    return;
  }
  if (node.nodeType !== ELEMENT_NODE) return;
  const el = node as Element;
  if (isSkipped(el)) return;
  const tag = el.localName;
  if (tag === "br") {
    out.push({ type: "line_break" });
    return;
  }
  if (tag === "img") {
    const img = imageNode(el, base);
    if (img) out.push(img);
    else if (el.getAttribute("alt")?.trim()) out.push(text(el.getAttribute("alt") ?? "", marks));
    return;
  }
  const mark = MARK_OF[tag];
  if (mark === "code" || tag === "pre") {
    out.push(text(visibleText(el), withMark(marks, "code")));
    return;
  }
  const inner = mark ? withMark(marks, mark) : marks;
  if (tag === "a") {
    const href = el.getAttribute("href");
    const url = isFragmentOnly(href) ? null : absoluteUrl(href, base);
    if (url !== null) {
      const children: DocInline[] = [];
      for (let n = el.firstChild; n; n = n.nextSibling) inlineNodes(n, base, inner, children);
      const title = el.getAttribute("title")?.trim();
      out.push(title ? { type: "link", href: url, title, children } : { type: "link", href: url, children });
      return;
    }
  }
  const block = BLOCK_TAGS.has(tag);
  if (block) out.push(text(" ", marks));
  for (let n = el.firstChild; n; n = n.nextSibling) inlineNodes(n, base, inner, out);
  if (block) out.push(text(" ", marks));
}

function sameMarks(a: DocText, b: DocText): boolean {
  return (a.marks ?? []).join() === (b.marks ?? []).join();
}

function trimEnd(out: DocInline[]): void {
  for (;;) {
    const last = out[out.length - 1];
    if (last === undefined) return;
    if (last.type === "line_break") out.pop();
    else if (last.type === "text") {
      last.text = last.text.trimEnd();
      if (last.text !== "") return;
      out.pop();
    } else if (last.type === "link") {
      trimEnd(last.children);
      if (last.children.length > 0) return;
      out.pop();
    } else return;
  }
}

function normalize(nodes: DocInline[], state: { space: boolean }): DocInline[] {
  const out: DocInline[] = [];
  for (const n of nodes) {
    if (n.type === "text") {
      let t = collapseWhitespace(n.text);
      if (state.space && t.startsWith(" ")) t = t.slice(1);
      if (t === "") continue;
      state.space = t.endsWith(" ");
      const prev = out[out.length - 1];
      if (prev?.type === "text" && sameMarks(prev, n)) prev.text += t;
      else out.push({ ...n, text: t });
    } else if (n.type === "line_break") {
      trimEnd(out);
      if (out.length > 0 && out[out.length - 1]?.type !== "line_break") out.push(n);
      state.space = true;
    } else if (n.type === "link") {
      const children = normalize(n.children, state);
      if (children.length > 0) out.push({ ...n, children });
    } else {
      out.push(n);
      state.space = false;
    }
  }
  return out;
}

/**
 * Whitespace collapsed as a browser renders it (across element boundaries), leading and trailing
 * whitespace and line breaks dropped, empty text and links removed, adjacent same-mark text merged.
 */
export function normalizeInline(nodes: DocInline[]): DocInline[] {
  const out = normalize(nodes, { space: true });
  trimEnd(out);
  return out;
}
