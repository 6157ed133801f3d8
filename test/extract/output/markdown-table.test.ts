import { describe, expect, it } from "vitest";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { BASE, body } from "./helpers.ts";

const md = (html: string): string => toMarkdown(body(html), BASE);

describe("toMarkdown tables", () => {
  it("a table with thead becomes a GFM table", () => {
    const html =
      "<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tbody><tr><td>Apple</td><td>3</td></tr><tr><td>Pear</td><td>5</td></tr></tbody></table>";
    expect(md(html)).toBe("| Name | Qty |\n| --- | --- |\n| Apple | 3 |\n| Pear | 5 |");
  });

  it("a leading row of th is the header; without one the first row is used", () => {
    expect(md("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>")).toBe(
      "| A | B |\n| --- | --- |\n| 1 | 2 |",
    );
    expect(md("<table><tr><td>x</td><td>y</td></tr><tr><td>1</td><td>2</td></tr></table>")).toBe(
      "| x | y |\n| --- | --- |\n| 1 | 2 |",
    );
  });

  it("escapes pipes in cells, including inside code and links", () => {
    const html =
      '<table><tr><th>Op</th><th>Meaning</th></tr><tr><td><code>a || b</code></td><td>x | y <a href="/p?q=a|b">l</a></td></tr></table>';
    expect(md(html)).toBe("| Op | Meaning |\n| --- | --- |\n| `a \\|\\| b` | x \\| y [l](https://example.com/p?q=a\\|b) |");
  });

  it("keeps inline markup in cells and turns line breaks into <br>", () => {
    const html = "<table><tr><th>K</th><th>V</th></tr><tr><td><b>bold</b> <em>it</em></td><td>line1<br>line2</td></tr></table>";
    expect(md(html)).toBe("| K | V |\n| --- | --- |\n| **bold** *it* | line1<br>line2 |");
  });

  it("drops line breaks at the edges of a cell", () => {
    const html = "<table><tr><th>A</th><th>B</th></tr><tr><td><br>x<br></td><td>y<br> </td></tr></table>";
    expect(md(html)).toBe("| A | B |\n| --- | --- |\n| x | y |");
  });

  it("flattens blocks in cells onto one line", () => {
    const html =
      "<table><tr><th>A</th><th>B</th></tr><tr><td><p>p1</p><p>p2</p></td><td><ul><li>x</li><li>y</li></ul></td></tr></table>";
    expect(md(html)).toBe("| A | B |\n| --- | --- |\n| p1 p2 | x y |");
  });

  it("colspan leaves the covered columns empty so that columns line up", () => {
    const html =
      "<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td colspan=2>wide</td><td>c</td></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>";
    expect(md(html)).toBe("| A | B | C |\n| --- | --- | --- |\n| wide |  | c |\n| 1 | 2 | 3 |");
  });

  it("rowspan fills the cells below", () => {
    const html = "<table><tr><th>A</th><th>B</th></tr><tr><td rowspan=2>tall</td><td>1</td></tr><tr><td>2</td></tr></table>";
    expect(md(html)).toBe("| A | B |\n| --- | --- |\n| tall | 1 |\n|  | 2 |");
  });

  it("ragged rows are padded to the widest row", () => {
    const html = "<table><tr><th>A</th></tr><tr><td>1</td><td>2</td><td>3</td></tr></table>";
    expect(md(html)).toBe("| A |  |  |\n| --- | --- | --- |\n| 1 | 2 | 3 |");
  });

  it("a caption comes before the table", () => {
    const html = "<table><caption>Prices</caption><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>";
    expect(md(html)).toBe("Prices\n\n| A | B |\n| --- | --- |\n| 1 | 2 |");
  });

  it("layout tables (one cell, one column, nested tables, role=presentation) are unwrapped", () => {
    expect(md("<table><tr><td><h2>Story</h2><p>Body text.</p></td></tr></table>")).toBe("## Story\n\nBody text.");
    expect(md("<table><tr><td>row one</td></tr><tr><td>row two</td></tr></table>")).toBe("row one\n\nrow two");
    expect(md('<table role="presentation"><tr><td>left</td><td>right</td></tr></table>')).toBe("left\n\nright");
    const nested =
      "<table><tr><td>nav</td><td><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table></td></tr></table>";
    expect(md(nested)).toBe("nav\n\n| A | B |\n| --- | --- |\n| 1 | 2 |");
  });

  it("tables without rows produce nothing", () => {
    expect(md("<p>a</p><table></table><p>b</p>")).toBe("a\n\nb");
    expect(md("<p>a</p><table><tr><td> </td><td><span></span></td></tr></table><p>b</p>")).toBe("a\n\nb");
  });

  it("a table of 150,000 rows is written whole (its width was a spread of every row into Math.max: a stack overflow)", () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => `<tr><td>row ${i}</td><td>${i * 7}</td></tr>`).join("");
    const lines = md(
      `<table><tr><th>Name</th><th>Value</th></tr>${rows}<tr><td>a</td><td>b</td><td>wider</td></tr></table>`,
    ).split("\n");
    expect(lines).toHaveLength(150_003);
    expect(lines.slice(0, 3)).toEqual(["| Name | Value |  |", "| --- | --- | --- |", "| row 0 | 0 |  |"]);
    expect(lines.at(-1)).toBe("| a | b | wider |");
  });

  it("a table inside a list item is indented", () => {
    expect(md("<ul><li>t<table><tr><th>A</th><th>B</th></tr></table></li></ul>")).toBe("- t\n\n  | A | B |\n  | --- | --- |");
  });
});
