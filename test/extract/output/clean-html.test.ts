import { describe, expect, it } from "vitest";
import { toCleanHtml } from "../../../functions/extract/output/clean-html.ts";
import { BASE, body } from "./helpers.ts";

const clean = (html: string, head = ""): string => {
  const root = body(`<article>${html}</article>`, head).querySelector("article");
  return root ? toCleanHtml(root, BASE) : "";
};

describe("toCleanHtml", () => {
  it("returns the subtree's HTML", () => {
    expect(clean("<h1>T</h1><p>Hello <b>x</b></p>")).toBe("<article><h1>T</h1><p>Hello <b>x</b></p></article>");
  });

  it("removes scripts, styles, noscript, templates, iframes, svg, form controls, hidden elements and comments", () => {
    const html =
      "<p>a</p><script>evil()</script><style>p{}</style><noscript>ns</noscript><template><p>t</p></template>" +
      '<iframe src="/f"></iframe><svg><path d="M0"/></svg><button>b</button><input value="v"><p hidden>h</p><!-- c --><p>z</p>';
    expect(clean(html)).toBe("<article><p>a</p><p>z</p></article>");
  });

  it("drops event handlers, inline styles, classes, ids and data attributes; keeps allowed ones", () => {
    const html =
      '<p class="lead" id="p1" style="color:red" onclick="x()" data-track="1" title="t" lang="fr" dir="ltr">p</p>' +
      '<table><tr><td colspan="2" rowspan="3" class="c" onmouseover="y()">c</td></tr></table><time datetime="2024-01-02" class="d">Jan</time>' +
      '<ol start="3" reversed class="x"><li value="5">v</li></ol>';
    expect(clean(html)).toBe(
      '<article><p title="t" lang="fr" dir="ltr">p</p><table><tr><td colspan="2" rowspan="3">c</td></tr></table>' +
        '<time datetime="2024-01-02">Jan</time><ol start="3" reversed><li value="5">v</li></ol></article>',
    );
  });

  it("makes links and image URLs absolute and drops javascript: URLs", () => {
    const html =
      '<a href="../up?a=1&amp;b=2">u</a><a href="JavaScript:alert(1)">j</a><a href="//cdn.example.org/x">p</a><img src="i.png" alt="I">';
    expect(clean(html)).toBe(
      '<article><a href="https://example.com/up?a=1&amp;b=2">u</a><a>j</a><a href="https://cdn.example.org/x">p</a>' +
        '<img src="https://example.com/blog/i.png" alt="I"></article>',
    );
  });

  it("resolves against <base href>", () => {
    expect(clean('<a href="x">x</a>', '<base href="https://b.example/">')).toBe(
      '<article><a href="https://b.example/x">x</a></article>',
    );
  });

  it("removes data: images, uses lazy and srcset URLs, and drops <picture> sources", () => {
    const html =
      '<img src="data:image/png;base64,AAAA" alt="d"><img src="data:," data-src="/lazy.jpg"><img src="s.jpg" srcset="s.jpg 1x, l.jpg 2x">' +
      '<picture><source srcset="/p.webp"><img src="/p.jpg" alt="p"></picture>';
    expect(clean(html)).toBe(
      '<article><img src="https://example.com/lazy.jpg"><img src="https://example.com/blog/l.jpg">' +
        '<picture><img src="https://example.com/p.jpg" alt="p"></picture></article>',
    );
  });

  it("escapes text and attribute values", () => {
    expect(clean('<p title="a &quot;q&quot; &amp; b">1 &lt; 2 &amp; 3 &gt; 2</p>')).toBe(
      '<article><p title="a &quot;q&quot; &amp; b">1 &lt; 2 &amp; 3 &gt; 2</p></article>',
    );
  });

  it("keeps code verbatim with its language as class=language-x", () => {
    expect(clean('<pre class="highlight"><code class="language-ts hljs">let a = 1 &lt; 2;\n  x</code></pre>')).toBe(
      '<article><pre><code class="language-ts">let a = 1 &lt; 2;\n  x</code></pre></article>',
    );
    expect(clean('<pre class="lang-py">x  =  1</pre>')).toBe('<article><pre class="language-py">x  =  1</pre></article>');
  });

  it("shrinks whitespace between blocks", () => {
    expect(clean("\n\n   <p>a</p>\n   \n  <p>b</p>")).toBe("<article>\n<p>a</p>\n<p>b</p></article>");
  });
});
