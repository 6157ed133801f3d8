import { describe, expect, it } from "vitest";
import { toTree } from "../../../functions/extract/output/tree.ts";
import { type DocBlock, DocTreeSchema } from "../../../functions/extract/output/tree-schema.ts";
import { BASE, body } from "./helpers.ts";

const tree = (html: string, head = "") => {
  const t = toTree(body(html, head), BASE);
  // every tree the converter builds must satisfy its published schema
  expect(DocTreeSchema.safeParse(t).success).toBe(true);
  return t;
};
const blocks = (html: string, head = ""): DocBlock[] => tree(html, head).children;
const text = (t: string, marks?: string[]) => (marks ? { type: "text", text: t, marks } : { type: "text", text: t });
const para = (...children: unknown[]) => ({ type: "paragraph", children });

describe("toTree", () => {
  it("is a document of blocks", () => {
    expect(tree("<h2>T</h2><p>x</p>")).toEqual({
      type: "document",
      children: [{ type: "heading", level: 2, children: [text("T")] }, para(text("x"))],
    });
  });

  it("line breaks in headings become spaces", () => {
    expect(blocks("<h3>Part one<br>the start</h3>")).toEqual([
      { type: "heading", level: 3, children: [text("Part one the start")] },
    ]);
  });

  it("collapses whitespace across elements and merges adjacent text with the same marks", () => {
    expect(blocks("<p>  Hello\n  <span>big</span>  <span> world</span>  </p>")).toEqual([para(text("Hello big world"))]);
    expect(blocks("<p>a &amp; b &lt;c&gt;</p>")).toEqual([para(text("a & b <c>"))]);
  });

  it("marks bold, italic, code and strike, combined in a fixed order", () => {
    expect(blocks("<p><b>b</b> <i>i</i> <code>c</code> <del>s</del> <em><strong>both</strong></em></p>")).toEqual([
      para(
        text("b", ["bold"]),
        text(" "),
        text("i", ["italic"]),
        text(" "),
        text("c", ["code"]),
        text(" "),
        text("s", ["strike"]),
        text(" "),
        text("both", ["bold", "italic"]),
      ),
    ]);
  });

  it("links are absolute with inline children; fragment-only and javascript: links become text", () => {
    expect(
      blocks('<p><a href="../x" title="t">go <b>now</b></a> <a href="#a">here</a> <a href="javascript:x()">js</a></p>'),
    ).toEqual([
      para(
        { type: "link", href: "https://example.com/x", title: "t", children: [text("go "), text("now", ["bold"])] },
        text(" here js"),
      ),
    ]);
  });

  it("resolves against <base href>", () => {
    expect(blocks('<a href="p">p</a>', '<base href="https://other.example/dir/">')).toEqual([
      para({ type: "link", href: "https://other.example/dir/p", children: [text("p")] }),
    ]);
  });

  it("line breaks inside paragraphs, none at the edges", () => {
    expect(blocks("<p><br>a<br>b<br><br></p>")).toEqual([para(text("a"), { type: "line_break" }, text("b"))]);
  });

  it("a paragraph holding only an image is an image block; inline images stay inline", () => {
    expect(blocks('<p><img src="/a.png" alt="A" title="T"></p><p>see <img src="b.png" alt=""></p>')).toEqual([
      { type: "image", src: "https://example.com/a.png", alt: "A", title: "T" },
      para(text("see "), { type: "image", src: "https://example.com/blog/b.png", alt: "" }),
    ]);
  });

  it("data: images are dropped, keeping their alt text; lazy images use the real URL", () => {
    expect(
      blocks('<p><img src="data:image/png;base64,AAAA" alt="chart"></p><img src="data:," data-src="/real.jpg" alt="r">'),
    ).toEqual([para(text("chart")), { type: "image", src: "https://example.com/real.jpg", alt: "r" }]);
  });

  it("lists: ordered with start, nested, empty items dropped", () => {
    expect(blocks('<ol start="4"><li>a<ul><li>b</li></ul></li><li> </li></ol><ul><li>c</li></ul>')).toEqual([
      {
        type: "list",
        ordered: true,
        start: 4,
        items: [{ children: [para(text("a")), { type: "list", ordered: false, items: [{ children: [para(text("b"))] }] }] }],
      },
      { type: "list", ordered: false, items: [{ children: [para(text("c"))] }] },
    ]);
  });

  it("a list straight inside a list belongs to the item before it", () => {
    const nested = { type: "list", ordered: false, items: [{ children: [para(text("b"))] }] };
    expect(blocks("<ul><li>a</li><ul><li>b</li></ul></ul>")).toEqual([
      { type: "list", ordered: false, items: [{ children: [para(text("a")), nested] }] },
    ]);
  });

  it("tables: header rows, body rows, spans and caption", () => {
    const html =
      "<table><caption>Cap</caption><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td colspan=2><b>w</b></td></tr><tr><td rowspan=2>r</td><td></td></tr></tbody></table>";
    expect(blocks(html)).toEqual([
      {
        type: "table",
        caption: [text("Cap")],
        header: [[{ children: [text("A")] }, { children: [text("B")] }]],
        rows: [[{ children: [text("w", ["bold"])], colspan: 2 }], [{ children: [text("r")], rowspan: 2 }, { children: [] }]],
      },
    ]);
  });

  it("layout tables are unwrapped into blocks", () => {
    expect(blocks("<table><tr><td><p>x</p></td></tr></table>")).toEqual([para(text("x"))]);
  });

  it("code blocks with language, quotes, hr and figures", () => {
    expect(blocks('<pre><code class="language-sh">ls -la\n</code></pre><blockquote><p>q</p></blockquote><hr>')).toEqual([
      { type: "code", language: "sh", text: "ls -la" },
      { type: "quote", children: [para(text("q"))] },
      { type: "hr" },
    ]);
    expect(blocks('<figure><img src="/f.png" alt="f"><figcaption>Fig <i>1</i></figcaption></figure>')).toEqual([
      {
        type: "figure",
        children: [{ type: "image", src: "https://example.com/f.png", alt: "f" }],
        caption: [text("Fig "), text("1", ["italic"])],
      },
    ]);
    expect(blocks("<pre>code</pre>")[0]).toEqual({ type: "code", language: null, text: "code" });
  });

  it("definition terms are bold paragraphs", () => {
    expect(blocks("<dl><dt>T</dt><dd>D</dd></dl>")).toEqual([para(text("T", ["bold"])), para(text("D"))]);
  });

  it("no empty nodes: empty paragraphs, headings, links, quotes and code are dropped", () => {
    expect(
      blocks(
        '<p> </p><h1></h1><a href="/x"> </a><blockquote> </blockquote><pre>  </pre><ul></ul><p><b> </b></p><table><tr><td></td><td> </td></tr></table>',
      ),
    ).toEqual([]);
  });

  it("scripts, styles and hidden content never appear", () => {
    expect(blocks("<p>a<script>x</script><style>y</style><span hidden>z</span></p>")).toEqual([para(text("a"))]);
  });

  it("CJK and RTL text is kept as is", () => {
    expect(blocks("<p>日本語 <b>テキスト</b></p><p dir=rtl>مرحبا</p>")).toEqual([
      para(text("日本語 "), text("テキスト", ["bold"])),
      para(text("مرحبا")),
    ]);
  });
});
