import { describe, expect, it } from "vitest";
import { toCleanHtml } from "../../../functions/extract/output/clean-html.ts";
import { collectImageLinks, collectLinks } from "../../../functions/extract/output/links.ts";
import { toMarkdown } from "../../../functions/extract/output/markdown.ts";
import { toPlainText } from "../../../functions/extract/output/plain-text.ts";
import { applySelectors } from "../../../functions/extract/output/selectors.ts";
import { toTree } from "../../../functions/extract/output/tree.ts";
import { BASE, page } from "./helpers.ts";

/** A large article-like page: sections of paragraphs with inline markup, lists, tables, code and images. */
function bigPage(sections: number): string {
  const parts: string[] = [];
  for (let s = 0; s < sections; s++) {
    parts.push(`<section id="s${s}"><h2>Section ${s} &amp; more</h2>`);
    for (let p = 0; p < 8; p++) {
      parts.push(
        `<p>Paragraph ${p} with <b>bold</b>, <i>italic</i>, <code>code_${p}</code>, a <a href="/p/${s}/${p}?q=1">link</a> ` +
          `and some *special* [chars] _here_ &lt;tag&gt; ${"lorem ipsum dolor sit amet ".repeat(6)}</p>`,
      );
    }
    parts.push(`<ul>${"<li>item <em>x</em><ul><li>nested</li></ul></li>".repeat(5)}</ul>`);
    parts.push(`<table><tr><th>A</th><th>B|C</th></tr>${"<tr><td>1</td><td>two <b>2</b></td></tr>".repeat(5)}</table>`);
    parts.push(`<pre><code class="language-js">const x = ${s};\nconsole.log(\`x\`);</code></pre>`);
    parts.push(
      `<img src="/i/${s}.jpg" srcset="/i/${s}-s.jpg 320w, /i/${s}-l.jpg 1280w" alt="image ${s}"><script>var a=${s}</script>`,
    );
    parts.push("</section>");
  }
  return `<main>${parts.join("")}</main>`;
}

const time = (fn: () => unknown): number => {
  const start = performance.now();
  fn();
  return performance.now() - start;
};

describe("speed sanity (timings printed, not asserted)", () => {
  it("converts a large generated page", () => {
    const html = bigPage(400);
    const doc = page(html);
    const root = doc.querySelector("main");
    if (!root) throw new Error("no main");
    const results: Record<string, number> = {};
    let markdown = "";
    // the best of five passes: the first ones pay for JIT compilation, and the machine may be busy
    for (let pass = 0; pass < 5; pass++) {
      const t: Record<string, number> = {
        markdown: time(() => {
          markdown = toMarkdown(root, BASE);
        }),
        tree: time(() => toTree(root, BASE)),
        cleanHtml: time(() => toCleanHtml(root, BASE)),
        plainText: time(() => toPlainText(root)),
        links: time(() => collectLinks(root, BASE)),
        imageLinks: time(() => collectImageLinks(root, BASE)),
        selectors: time(() => applySelectors(doc, ["section h2", "pre"], ["script"])),
      };
      for (const [k, v] of Object.entries(t)) results[k] = Math.min(results[k] ?? Number.POSITIVE_INFINITY, v);
    }
    const summary = Object.entries(results)
      .map(([k, v]) => `${k} ${v.toFixed(1)} ms`)
      .join(", ");
    process.stdout.write(`[output speed] ${(html.length / 1024).toFixed(0)} KiB page: ${summary}\n`);
    expect(markdown.length).toBeGreaterThan(100_000);
    expect(markdown).not.toMatch(/\n{3}/);
  });
});
