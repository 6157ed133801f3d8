import { describe, expect, it } from "vitest";
import { toPlainText } from "../../../functions/extract/output/plain-text.ts";
import { body } from "./helpers.ts";

const plain = (html: string): string => toPlainText(body(html));

describe("toPlainText", () => {
  it("one line per block, inline whitespace collapsed", () => {
    expect(plain("<h1>Title</h1><p>Hello   <b>big</b>\n  world</p><div><p>nested</p></div>")).toBe(
      "Title\nHello big world\nnested",
    );
  });

  it("list items and line breaks become lines", () => {
    expect(plain("<ul><li>a</li><li>b <i>c</i></li></ul><p>x<br>y</p>")).toBe("a\nb c\nx\ny");
  });

  it("table cells are separated by tabs and rows by newlines", () => {
    expect(plain("<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2 <b>x</b></td></tr></table>")).toBe("A\tB\n1\t2 x");
  });

  it("pre keeps its whitespace and blank lines", () => {
    expect(plain("<p>before</p><pre>  a  b\n\n    c</pre><p>after</p>")).toBe("before\n  a  b\n\n    c\nafter");
  });

  it("scripts, styles, noscript, templates and hidden elements are excluded", () => {
    expect(
      plain("<p>a</p><script>s()</script><style>p{}</style><noscript>n</noscript><template>t</template><p hidden>h</p><p>b</p>"),
    ).toBe("a\nb");
  });

  it("decodes entities and keeps CJK and RTL text", () => {
    expect(plain("<p>a &amp; b &lt;c&gt; &nbsp;d</p><p>漢字かな</p><p>עברית</p>")).toBe("a & b <c> d\n漢字かな\nעברית");
  });

  it("an empty or whitespace-only root gives an empty string", () => {
    expect(plain("  <div> <span> </span> </div>")).toBe("");
  });

  it("does not escape markdown characters", () => {
    expect(plain("<p># *a* _b_ 1. [c]</p>")).toBe("# *a* _b_ 1. [c]");
  });
});
