import { codeLanguage, preText } from "./code.ts";
import { CDATA_SECTION_NODE, childElement, documentBase, ELEMENT_NODE, isSkipped, TEXT_NODE } from "./dom.ts";
import { isLayoutTable, rowCells, tableRows } from "./markdown-table.ts";
import { INLINE_TAGS, PARAGRAPH_TAGS } from "./tags.ts";
import { inlineNodes, normalizeInline } from "./tree-inline.ts";
import type { DocBlock, DocInline, DocListItem, DocTable, DocTableCell, DocText, DocTree } from "./tree-schema.ts";

/** Blocks collected for one container, with the inline run that has not become a paragraph yet. */
class Blocks {
  readonly out: DocBlock[] = [];
  private pending: DocInline[] = [];

  inline(node: DocInline[] | DocInline): void {
    if (Array.isArray(node)) this.pending.push(...node);
    else this.pending.push(node);
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const children = normalizeInline(this.pending);
    this.pending = [];
    const only = children[0];
    // a paragraph holding nothing but an image is the image
    if (children.length === 1 && only?.type === "image") this.out.push(only);
    else if (children.length > 0) this.out.push({ type: "paragraph", children });
  }

  block(node: DocBlock): void {
    this.flush();
    this.out.push(node);
  }

  done(): DocBlock[] {
    this.flush();
    return this.out;
  }
}

/**
 * The JSON document tree of `root` (format=json): headings, paragraphs, lists, tables, code, quotes,
 * images, figures and rules, with absolute URLs, no empty nodes and adjacent text merged.
 */
export function toTree(root: Element, baseUrl: string): DocTree {
  const builder = new TreeBuilder(documentBase(root, baseUrl));
  const blocks = new Blocks();
  builder.element(root, blocks);
  return { type: "document", children: blocks.done() };
}

class TreeBuilder {
  private readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  private blocksOf(node: Node, skip?: string): DocBlock[] {
    const blocks = new Blocks();
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (skip && n.nodeType === ELEMENT_NODE && (n as Element).localName === skip) continue;
      this.node(n, blocks);
    }
    return blocks.done();
  }

  /** The blocks of one element taken as a whole (a stray non-<li> child of a list). */
  private wrapped(el: Element): DocBlock[] {
    const blocks = new Blocks();
    this.element(el, blocks);
    return blocks.done();
  }

  /** Normalised inline content of `node`; `oneLine` turns line breaks into spaces (headings). */
  private inlineOf(node: Node, oneLine = false): DocInline[] {
    const raw: DocInline[] = [];
    for (let n = node.firstChild; n; n = n.nextSibling) inlineNodes(n, this.base, [], raw);
    return normalizeInline(oneLine ? raw.map((c) => (c.type === "line_break" ? { type: "text", text: " " } : c)) : raw);
  }

  private node(n: Node, blocks: Blocks): void {
    if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) {
      if (n.nodeValue) blocks.inline({ type: "text", text: n.nodeValue });
    } else if (n.nodeType === ELEMENT_NODE) this.element(n as Element, blocks);
  }

  element(el: Element, blocks: Blocks): void {
    if (isSkipped(el)) return;
    const tag = el.localName;
    if (INLINE_TAGS.has(tag)) {
      const raw: DocInline[] = [];
      inlineNodes(el, this.base, [], raw);
      blocks.inline(raw);
      return;
    }
    switch (tag) {
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6": {
        const children = this.inlineOf(el, true);
        if (children.length > 0) blocks.block({ type: "heading", level: Number(tag[1]), children });
        else blocks.flush();
        return;
      }
      case "ul":
      case "ol":
      case "menu":
        this.list(el, tag === "ol", blocks);
        return;
      case "blockquote": {
        const children = this.blocksOf(el);
        if (children.length > 0) blocks.block({ type: "quote", children });
        return;
      }
      case "pre": {
        const text = preText(el);
        if (text.trim() !== "") blocks.block({ type: "code", language: codeLanguage(el), text });
        return;
      }
      case "hr":
        blocks.block({ type: "hr" });
        return;
      case "table":
        this.table(el, blocks);
        return;
      case "figure":
        this.figure(el, blocks);
        return;
      case "dt": {
        const children = this.inlineOf(el).map((c) => (c.type === "text" ? { ...c, marks: addBold(c.marks) } : c));
        if (children.length > 0) blocks.block({ type: "paragraph", children });
        return;
      }
      default:
        if (!PARAGRAPH_TAGS.has(tag)) {
          for (let n = el.firstChild; n; n = n.nextSibling) this.node(n, blocks);
          return;
        }
        blocks.flush();
        for (let n = el.firstChild; n; n = n.nextSibling) this.node(n, blocks);
        blocks.flush();
        return;
    }
  }

  private list(el: Element, ordered: boolean, blocks: Blocks): void {
    const items: DocListItem[] = [];
    for (let n = el.firstElementChild; n; n = n.nextElementSibling) {
      if (isSkipped(n)) continue;
      const previous = items[items.length - 1];
      if (previous && (n.localName === "ul" || n.localName === "ol")) {
        // <ul><li>a</li><ul>…</ul></ul>: a list straight inside a list belongs to the item before it
        previous.children.push(...this.wrapped(n));
        continue;
      }
      const children = n.localName === "li" ? this.blocksOf(n) : this.wrapped(n);
      if (children.length > 0) items.push({ children });
    }
    if (items.length === 0) {
      blocks.flush();
      return;
    }
    const start = Number.parseInt(el.getAttribute("start") ?? "", 10);
    blocks.block(
      ordered && Number.isFinite(start) && start !== 1
        ? { type: "list", ordered, start, items }
        : { type: "list", ordered, items },
    );
  }

  private table(el: Element, blocks: Blocks): void {
    const rows = tableRows(el);
    const captionEl = childElement(el, "caption");
    const caption = captionEl ? this.inlineOf(captionEl) : [];
    if (isLayoutTable(el, rows)) {
      if (caption.length > 0) blocks.block({ type: "paragraph", children: caption });
      for (const row of rows) for (const cell of rowCells(row)) for (const b of this.blocksOf(cell)) blocks.block(b);
      return;
    }
    const header: DocTableCell[][] = [];
    const body: DocTableCell[][] = [];
    rows.forEach((row, i) => {
      const cells = rowCells(row);
      if (cells.length === 0) return;
      const out = cells.map((cell) => this.cell(cell));
      const isHeader = row.parentElement?.localName === "thead" || (i === 0 && cells.every((c) => c.localName === "th"));
      (isHeader && body.length === 0 ? header : body).push(out);
    });
    const empty = (rows: DocTableCell[][]) => rows.every((row) => row.every((cell) => cell.children.length === 0));
    if (empty(header) && empty(body)) return; // an empty table is no content
    const table: DocTable = { type: "table", rows: body };
    if (header.length > 0) table.header = header;
    if (caption.length > 0) table.caption = caption;
    blocks.block(table);
  }

  private cell(cell: Element): DocTableCell {
    const out: DocTableCell = { children: this.inlineOf(cell) };
    const colspan = Number.parseInt(cell.getAttribute("colspan") ?? "", 10);
    const rowspan = Number.parseInt(cell.getAttribute("rowspan") ?? "", 10);
    if (colspan > 1) out.colspan = Math.min(colspan, 100);
    if (rowspan > 1) out.rowspan = rowspan;
    return out;
  }

  private figure(el: Element, blocks: Blocks): void {
    const captionEl = childElement(el, "figcaption");
    const caption = captionEl ? this.inlineOf(captionEl) : [];
    const children = this.blocksOf(el, "figcaption");
    if (children.length === 0 && caption.length === 0) return;
    blocks.block(caption.length > 0 ? { type: "figure", children, caption } : { type: "figure", children });
  }
}

function addBold(marks: DocText["marks"]): DocText["marks"] {
  return marks?.includes("bold") ? marks : ["bold", ...(marks ?? [])];
}
