import { describe, expect, it } from "vitest";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { codeSpan, escapeLineStart, escapeText } from "../../../functions/extract/output/markdown-escape.ts";
import { BASE, body } from "./helpers.ts";

const md = (html: string, head = ""): string => toMarkdown(body(html, head), BASE);

describe("toMarkdown inline", () => {
  it("emphasis, strong, strike and inline code", () => {
    expect(md("<p><b>b</b> <strong>s</strong> <i>i</i> <em>e</em> <del>d</del> <s>s</s> <code>c</code> <kbd>K</kbd></p>")).toBe(
      "**b** **s** *i* *e* ~~d~~ ~~s~~ `c` `K`",
    );
  });

  it("moves whitespace outside emphasis and drops empty emphasis", () => {
    expect(md("<p>a<b> bold </b>b<em> </em>c<strong></strong></p>")).toBe("a **bold** b c");
  });

  it("does not double nested emphasis of the same kind", () => {
    expect(md("<p><b>x <strong>y</strong> z</b> <b><i>both</i></b></p>")).toBe("**x y z** ***both***");
  });

  it("inline code with backticks inside uses a longer fence", () => {
    expect(md("<p><code>a`b</code> <code>``x``</code> <code>`tick</code></p>")).toBe("``a`b`` ``` ``x`` ``` `` `tick ``");
    expect(codeSpan("plain")).toBe("`plain`");
  });

  it("inline code keeps markdown characters unescaped", () => {
    expect(md("<p><code>*args, **kwargs</code> and <code>a_b [c]</code></p>")).toBe("`*args, **kwargs` and `a_b [c]`");
  });

  it("links become absolute: relative, root-relative, protocol-relative, query and fragment", () => {
    const html =
      '<p><a href="next.html">n</a> <a href="/root">r</a> <a href="//cdn.example.org/x">p</a> ' +
      '<a href="?page=2">q</a> <a href="other.html#sec">f</a> <a href="https://x.org/a b">s</a></p>';
    expect(md(html)).toBe(
      "[n](https://example.com/blog/next.html) [r](https://example.com/root) [p](https://cdn.example.org/x) " +
        "[q](https://example.com/blog/post.html?page=2) [f](https://example.com/blog/other.html#sec) [s](https://x.org/a%20b)",
    );
  });

  it("resolves against <base href>", () => {
    expect(md('<a href="x">x</a>', '<base href="https://static.example.net/docs/">')).toBe(
      "[x](https://static.example.net/docs/x)",
    );
    expect(md('<a href="x">x</a>', '<base href="/v2/">')).toBe("[x](https://example.com/v2/x)");
  });

  it("keeps link titles and escapes parentheses in URLs", () => {
    expect(md('<a href="/w/Foo_(bar)" title="The &quot;foo&quot;">Foo</a>')).toBe(
      '[Foo](https://example.com/w/Foo_%28bar%29 "The \\"foo\\"")',
    );
  });

  it("drops titles that repeat the link text or alt text", () => {
    expect(md('<a href="/a" title="Read more">Read more</a> <img src="/i.png" alt="A *b*" title="A *b*">')).toBe(
      "[Read more](https://example.com/a) ![A \\*b\\*](https://example.com/i.png)",
    );
  });

  it("javascript: links, in-page anchors and links without text leave only their text", () => {
    expect(md('<p><a href="javascript:void(0)">js</a> <a href="#top">top</a> <a href="/x"> </a> <a>plain</a> end</p>')).toBe(
      "js top plain end",
    );
  });

  it("mailto links are kept", () => {
    expect(md('<a href="mailto:a@example.com">mail</a>')).toBe("[mail](mailto:a@example.com)");
  });

  it("links around blocks are flattened onto one line; nested links are not repeated", () => {
    expect(md('<a href="/p"><h3>Title</h3><p>Teaser</p></a>')).toBe("[Title Teaser](https://example.com/p)");
    expect(md('<a href="/a">x <a href="/b">y</a></a>')).toContain("[x");
  });

  it("images: absolute src, alt and title, srcset's largest, lazy attributes", () => {
    expect(md('<img src="a.png" alt="An [image]" title="T">')).toBe('![An \\[image\\]](https://example.com/blog/a.png "T")');
    expect(md('<img src="s.jpg" srcset="s.jpg 320w, m.jpg 640w, l.jpg 1280w" alt="x">')).toBe(
      "![x](https://example.com/blog/l.jpg)",
    );
    expect(md('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="lazy">')).toBe(
      "![lazy](https://example.com/real.jpg)",
    );
    expect(md('<img src="a.jpg" srcset="a.jpg 1x, a@2x.jpg 2x" alt="">')).toBe("![](https://example.com/blog/a@2x.jpg)");
  });

  it("data: images never appear; their alt text remains", () => {
    const out = md(
      '<p>Chart: <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ" alt="sales up"></p><img src="data:image/png;base64,AAAA">',
    );
    expect(out).toBe("Chart: sales up");
    expect(out).not.toContain("data:");
  });

  it("an image inside a link", () => {
    expect(md('<a href="/big.png"><img src="/small.png" alt="pic"></a>')).toBe(
      "[![pic](https://example.com/small.png)](https://example.com/big.png)",
    );
  });

  it("decodes entities and escapes what would become markup", () => {
    expect(md("<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 &lt;div&gt; &amp;copy; &copy;</p>")).toBe("1 < 2 && 3 > 2 \\<div> \\&copy; ©");
  });

  it("escapes emphasis, code, link and strike characters in text", () => {
    expect(md("<p>*not bold* `tick` [link](x) ~strike~ back\\slash</p>")).toBe(
      "\\*not bold\\* \\`tick\\` \\[link\\](x) \\~strike\\~ back\\\\slash",
    );
  });

  it("keeps underscores inside words and escapes them at word edges", () => {
    expect(md("<p>snake_case_name and _emph_ and __init__</p>")).toBe("snake_case_name and \\_emph\\_ and \\_\\_init\\_\\_");
  });

  it("escapes block markers at the start of a line only", () => {
    const html =
      "<p># Not a heading</p><p>1. Not a list</p><p>2) Nor this</p><p>- dash</p><p>+ plus</p><p>&gt; quote</p><p>===</p><p>---</p>";
    expect(md(html)).toBe(
      "\\# Not a heading\n\n1\\. Not a list\n\n2\\) Nor this\n\n\\- dash\n\n\\+ plus\n\n\\> quote\n\n\\===\n\n\\---",
    );
    expect(md("<p>Issue #42 costs 1. a - b + c > d</p>")).toBe("Issue #42 costs 1. a - b + c > d");
    expect(md("<p>first<br># second<br>3. third</p>")).toBe("first\\\n\\# second\\\n3\\. third");
    expect(md("<ul><li>1. inside</li></ul>")).toBe("- 1\\. inside");
  });

  it("hashtags and numbers without a following space are left alone", () => {
    expect(md("<p>#hashtag</p><p>2024.</p><p>3.14 is pi</p>")).toBe("#hashtag\n\n2024\\.\n\n3.14 is pi");
  });

  it("escape helpers", () => {
    expect(escapeText("a*b_c d_")).toBe("a\\*b_c d\\_");
    expect(escapeLineStart("10. x")).toBe("10\\. x");
    expect(escapeLineStart("1234567890. x")).toBe("1234567890. x");
  });

  it("RTL, CJK and emoji text is not escaped or mangled", () => {
    expect(md("<p>שלום <b>עולם</b> 東京 😀 café</p>")).toBe("שלום **עולם** 東京 😀 café");
  });
});
