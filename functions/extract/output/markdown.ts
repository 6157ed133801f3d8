import { codeLanguage, preText } from "./code.ts";
import { childElement, collapseWhitespace, documentBase, ELEMENT_NODE, isSkipped, isText, textRun } from "./dom.ts";
import { codeFence, escapeLineStart } from "./markdown-escape.ts";
import { BREAK, InlineRenderer } from "./markdown-inline.ts";
import { gfmTable, isLayoutTable, tableGrid, tableRows } from "./markdown-table.ts";
import { INLINE_TAGS, PARAGRAPH_TAGS } from "./tags.ts";

/** A line prefix: `first` on the block's first line ("- ", "> "), `rest` on the lines after it. */
interface Frame {
  first: string;
  rest: string;
  used: boolean;
  /** A list item's frame (lists nest tightly inside it). */
  item: boolean;
}

/**
 * Converts `root` (the main content or the selector scope) to GitHub-flavoured Markdown in one walk.
 * Links and images are absolute (against `<base href>` and `baseUrl`); `data:` images leave only
 * their alt text; scripts, styles, embedded documents and hidden elements are left out.
 */
export function toMarkdown(root: Element, baseUrl: string): string {
  const writer = new MarkdownWriter(new InlineRenderer(documentBase(root, baseUrl)));
  writer.element(root);
  return writer.finish();
}

class MarkdownWriter {
  private readonly lines: string[] = [];
  private readonly frames: Frame[] = [];
  private readonly inline: InlineRenderer;
  private text = "";
  private blank = false;

  constructor(inline: InlineRenderer) {
    this.inline = inline;
  }

  finish(): string {
    this.flush();
    return this.lines.join("\n");
  }

  private emit(content: string): void {
    this.separate();
    let prefix = "";
    for (const f of this.frames) {
      prefix += f.used ? f.rest : f.first;
      f.used = true;
    }
    this.lines.push((prefix + content).trimEnd());
  }

  /** Writes the blank line a finished block asked for, once. */
  private separate(): void {
    if (!this.blank) return;
    this.blank = false;
    const top = this.frames[this.frames.length - 1];
    // a block opening a list item or quote sits on the marker's line, not after a blank
    if (this.lines.length === 0 || (top !== undefined && !top.used)) return;
    const blank = this.blankLine();
    if (this.lines[this.lines.length - 1] !== blank) this.lines.push(blank);
  }

  private blankLine(): string {
    let prefix = "";
    for (const f of this.frames) prefix += f.rest;
    return prefix.trimEnd();
  }

  /** Ends the pending paragraph: lines trimmed, spaces collapsed, hard breaks as a trailing backslash. */
  private flush(): void {
    if (this.text === "") return;
    const parts = this.text.split(BREAK);
    this.text = "";
    const lines: string[] = [];
    for (const p of parts) {
      const line = p.replace(/ {2,}/g, " ").trim();
      if (line !== "") lines.push(escapeLineStart(line));
    }
    lines.forEach((line, i) => {
      this.emit(i < lines.length - 1 ? `${line}\\` : line);
    });
  }

  private block(): void {
    this.flush();
    this.blank = true;
  }

  private open(first: string, rest: string, item = false): void {
    this.flush();
    this.separate();
    this.frames.push({ first, rest, used: false, item });
  }

  private close(): void {
    this.flush();
    this.frames.pop();
    this.blank = true;
  }

  children(node: Node): void {
    for (let n = node.firstChild; n; n = n.nextSibling) {
      if (isText(n)) {
        const run = textRun(n);
        this.text += this.inline.text(run.text);
        n = run.last;
      } else if (n.nodeType === ELEMENT_NODE) this.element(n as Element);
    }
  }

  element(el: Element): void {
    if (isSkipped(el)) return;
    const tag = el.localName;
    if (INLINE_TAGS.has(tag)) {
      this.text += this.inline.element(el);
      return;
    }
    switch (tag) {
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        this.heading(el, Number(tag[1]));
        return;
      case "ul":
      case "ol":
      case "menu":
        this.list(el, tag === "ol");
        return;
      case "blockquote":
        this.block();
        this.open("> ", "> ");
        this.children(el);
        this.close();
        return;
      case "pre":
        this.code(el);
        return;
      case "table":
        this.table(el);
        return;
      case "hr":
        this.block();
        this.emit("---");
        this.block();
        return;
      case "dd":
        this.flush();
        this.blank = false; // the definition follows its term directly
        this.open(": ", "  ");
        this.children(el);
        this.close();
        return;
      default:
        if (!PARAGRAPH_TAGS.has(tag)) {
          this.children(el);
          return;
        }
        this.block();
        this.children(el);
        this.block();
        return;
    }
  }

  private heading(el: Element, level: number): void {
    this.block();
    const text = collapseWhitespace(this.inline.children(el)).trim();
    if (text !== "") this.emit(`${"#".repeat(level)} ${text.replace(/(\s)(#+)$/, "$1\\$2")}`);
    this.block();
  }

  private list(el: Element, ordered: boolean): void {
    this.flush();
    // a list right inside an item nests tightly; elsewhere it is its own block
    this.blank = this.frames[this.frames.length - 1]?.item !== true;
    const items: Element[] = [];
    for (let n = el.firstElementChild; n; n = n.nextElementSibling) if (!isSkipped(n)) items.push(n);
    const reversed = ordered && el.hasAttribute("reversed");
    let number = Number.parseInt(el.getAttribute("start") ?? "", 10);
    if (!Number.isFinite(number)) number = reversed ? items.length : 1;
    let first = true;
    let indent = "";
    for (const item of items) {
      if (!first && (item.localName === "ul" || item.localName === "ol")) {
        // <ul><li>a</li><ul>…</ul></ul>: a list straight inside a list belongs to the item before it
        this.frames.push({ first: indent, rest: indent, used: true, item: true });
        this.element(item);
        this.flush();
        this.frames.pop();
        continue;
      }
      const value = Number.parseInt(item.getAttribute("value") ?? "", 10);
      if (ordered && Number.isFinite(value)) number = value;
      const marker = ordered ? `${Math.max(0, number)}. ` : "- ";
      if (!first) this.blank = false; // tight list
      indent = " ".repeat(marker.length);
      this.open(marker, indent, true);
      this.children(item);
      this.flush();
      const frame = this.frames.pop();
      if (frame?.used) first = false;
      number += reversed ? -1 : 1;
    }
    this.blank = true;
  }

  private code(pre: Element): void {
    const code = preText(pre);
    if (code.trim() === "") return;
    this.block();
    const fence = codeFence(code);
    this.emit(fence + (codeLanguage(pre) ?? ""));
    for (const line of code.split("\n")) this.emit(line);
    this.emit(fence);
    this.block();
  }

  private table(table: Element): void {
    const rows = tableRows(table);
    const caption = childElement(table, "caption");
    if (caption) this.element(caption);
    if (isLayoutTable(table, rows)) {
      for (const row of rows) this.children(row);
      this.block();
      return;
    }
    const { grid } = tableGrid(rows, (cell) =>
      collapseWhitespace(
        this.inline
          .children(cell)
          .trim()
          // A run of spaces holding a line break is one <br> (as /\s*\n\s*/ would make it, in
          // time quadratic in a long run of spaces without one).
          .replace(/\s+/g, (run) => (run.includes("\n") ? "<br>" : run)),
      ).replace(/\|/g, "\\|"),
    );
    if (grid.every((row) => row.every((cell) => cell === ""))) return; // an empty table is no content
    this.block();
    for (const line of gfmTable(grid)) this.emit(line);
    this.block();
  }
}
