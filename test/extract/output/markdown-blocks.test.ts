import { describe, expect, it } from "vitest";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { BASE, body } from "./helpers.ts";

const md = (html: string, head = ""): string => toMarkdown(body(html, head), BASE);

describe("toMarkdown blocks", () => {
  it("headings, paragraphs and blank lines between blocks", () => {
    expect(md("<h1>Title</h1><p>One</p><h3>Sub <em>x</em></h3><p>Two</p>")).toBe("# Title\n\nOne\n\n### Sub *x*\n\nTwo");
  });

  it("collapses whitespace and never leaves runs of blank lines or trailing spaces", () => {
    const out = md("<div>\n\n  <p>  a \n  b  </p>\n\n\n<div><div><p>c</p></div></div>   <p> </p><p>d</p></div>");
    expect(out).toBe("a b\n\nc\n\nd");
    expect(out).not.toMatch(/\n{3,}| +\n| +$/);
  });

  it("empty headings and paragraphs produce nothing", () => {
    expect(md("<h2> </h2><p></p><p>x</p><h3><span></span></h3>")).toBe("x");
  });

  it("a heading ending in # keeps it as text", () => {
    expect(md("<h2>Learn C #</h2><h2>C#</h2>")).toBe("## Learn C \\#\n\n## C#");
  });

  it("unordered, ordered with start, and reversed lists", () => {
    expect(md("<ul><li>a</li><li>b</li></ul>")).toBe("- a\n- b");
    expect(md('<ol start="7"><li>g</li><li>h</li></ol>')).toBe("7. g\n8. h");
    expect(md("<ol reversed><li>x</li><li>y</li><li>z</li></ol>")).toBe("3. x\n2. y\n1. z");
    expect(md('<ol><li>a</li><li value="10">b</li><li>c</li></ol>')).toBe("1. a\n10. b\n11. c");
  });

  it("nested lists indent by the parent marker width", () => {
    const html = "<ol><li>one<ul><li>a<ol><li>deep</li></ol></li><li>b</li></ul></li><li>two</li></ol>";
    expect(md(html)).toBe("1. one\n   - a\n     1. deep\n   - b\n2. two");
  });

  it("a list straight inside a list nests under the item before it", () => {
    expect(md("<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>")).toBe("- a\n  - b\n- c");
  });

  it("ten or more items widen the continuation indent", () => {
    const items = Array.from({ length: 10 }, (_, i) => `<li>i${i + 1}</li>`).join("");
    const out = md(`<ol>${items.replace("<li>i10</li>", "<li>i10<ul><li>sub</li></ul></li>")}</ol>`);
    expect(out.endsWith("10. i10\n    - sub")).toBe(true);
  });

  it("list items with paragraphs stay tight unless an item holds several blocks", () => {
    expect(md("<ul><li><p>a</p></li><li><p>b</p></li></ul>")).toBe("- a\n- b");
    expect(md("<ul><li><p>a</p><p>a2</p></li><li>b</li></ul>")).toBe("- a\n\n  a2\n- b");
  });

  it("empty list items are dropped; stray children of a list still appear", () => {
    expect(md("<ul><li></li><li>x</li><li> </li></ul>")).toBe("- x");
    expect(md("<ul><div>odd</div><li>ok</li></ul>")).toBe("- odd\n- ok");
  });

  it("a list after a paragraph and a paragraph after a list are separated", () => {
    expect(md("<p>Intro</p><ul><li>a</li></ul><p>After</p>")).toBe("Intro\n\n- a\n\nAfter");
  });

  it("blockquotes, nested and with lists", () => {
    expect(md("<blockquote><p>a</p><p>b</p></blockquote>")).toBe("> a\n>\n> b");
    expect(md("<blockquote>x<blockquote>y</blockquote></blockquote>")).toBe("> x\n>\n> > y");
    expect(md("<blockquote><ul><li>q</li></ul></blockquote>")).toBe("> - q");
    expect(md("<ul><li>item<blockquote>quoted</blockquote></li></ul>")).toBe("- item\n\n  > quoted");
  });

  it("fenced code blocks keep whitespace and take the language from classes or data-lang", () => {
    expect(md('<pre><code class="language-python">def f():\n    return 1\n</code></pre>')).toBe(
      "```python\ndef f():\n    return 1\n```",
    );
    expect(md('<pre class="lang-rust">fn main() {}</pre>')).toBe("```rust\nfn main() {}\n```");
    expect(md('<div class="highlight highlight-source-js"><pre>a()</pre></div>')).toBe("```js\na()\n```");
    expect(md('<pre data-lang="Go">x</pre>')).toBe("```go\nx\n```");
    expect(md('<pre class="brush: php;">x</pre>')).toBe("```php\nx\n```");
    expect(md('<pre class="hljs">plain</pre>')).toBe("```\nplain\n```");
    expect(md('<div class="highlighter-rouge"><pre class="language-none">p</pre></div>')).toBe("```\np\n```");
    expect(md('<div class="language-ruby highlighter-rouge"><pre class="highlight"><code>x</code></pre></div>')).toBe(
      "```ruby\nx\n```",
    );
    expect(md('<pre class="sourceCode python"><code>y</code></pre>')).toBe("```python\ny\n```");
  });

  it("a code block containing backtick fences gets a longer fence", () => {
    expect(md("<pre>```js\nx\n```</pre>")).toBe("````\n```js\nx\n```\n````");
  });

  it("code keeps markdown characters and entities verbatim, and <br> and line elements become newlines", () => {
    expect(md("<pre>*a* &lt;b&gt; # c</pre>")).toBe("```\n*a* <b> # c\n```");
    expect(md("<pre>a<br>b</pre>")).toBe("```\na\nb\n```");
    expect(md('<pre><div class="line">a</div><div class="line">b</div></pre>')).toBe("```\na\nb\n```");
  });

  it("code blocks inside list items are indented with the item", () => {
    expect(md("<ul><li>Run:<pre>npm i\nnpm t</pre></li></ul>")).toBe("- Run:\n\n  ```\n  npm i\n  npm t\n  ```");
  });

  it("horizontal rules, line breaks and definition lists", () => {
    expect(md("<p>a</p><hr><p>b</p>")).toBe("a\n\n---\n\nb");
    expect(md("<p>line one<br>line two<br></p>")).toBe("line one\\\nline two");
    expect(md("<p><br><br>x<br><br><br>y</p>")).toBe("x\\\ny");
    expect(md("<dl><dt>Term</dt><dd>Definition</dd><dt>T2</dt><dd>D2</dd></dl>")).toBe("Term\n: Definition\n\nT2\n: D2");
  });

  it("figures give the image and then the caption", () => {
    expect(md('<figure><img src="/a.png" alt="A"><figcaption>The <b>caption</b></figcaption></figure>')).toBe(
      "![A](https://example.com/a.png)\n\nThe **caption**",
    );
  });

  it("drops scripts, styles, noscript, templates, svg, iframes, form controls and hidden elements", () => {
    const html =
      '<p>keep</p><script>var x = "<p>no</p>";</script><style>p{color:red}</style><noscript>ns</noscript>' +
      '<template><p>tpl</p></template><svg><text>svg</text></svg><iframe src="/x"></iframe><button>Share</button>' +
      '<p hidden>hidden</p><p style="display: none">none</p><p>end</p>';
    expect(md(html)).toBe("keep\n\nend");
  });

  it("custom elements and spans are transparent; divs separate paragraphs", () => {
    expect(md("<my-card><span><p>a</p></span><x-text>b <b>c</b></x-text></my-card>")).toBe("a\n\nb **c**");
    expect(md("<div>one</div><div>two</div>")).toBe("one\n\ntwo");
  });

  it("mixes loose text and blocks in one container", () => {
    expect(md("<div>text <p>para</p> tail <b>bold</b></div>")).toBe("text\n\npara\n\ntail **bold**");
    expect(md("<center><font size=2>old <b>school</b></font></center><p>next</p>")).toBe("old **school**\n\nnext");
  });

  it("line breaks and code blocks inside list items keep the item indent", () => {
    expect(md("<ul><li>line1<br>line2</li></ul>")).toBe("- line1\\\n  line2");
    expect(md("<ol><li><p>x</p></li><li><p>y</p><pre>z</pre></li></ol>")).toBe("1. x\n2. y\n\n   ```\n   z\n   ```");
    expect(md("<blockquote><pre>code\n  indented</pre></blockquote>")).toBe("> ```\n> code\n>   indented\n> ```");
  });

  it("converts the root element itself, whatever it is", () => {
    const root = body("<ul id=l><li>x</li></ul>").querySelector("#l");
    expect(root && toMarkdown(root, BASE)).toBe("- x");
  });

  it("RTL and CJK text pass through", () => {
    expect(md('<p dir="rtl">مرحبا بالعالم</p><h2>日本語のテキスト</h2><p>中文，标点。</p>')).toBe(
      "مرحبا بالعالم\n\n## 日本語のテキスト\n\n中文，标点。",
    );
  });
});
