import { describe, expect, it } from "vitest";
import { extractHtml, extractMainText } from "../../../functions/extract/extract.ts";
import { capNesting, MAX_DEPTH } from "../../../functions/extract/nesting.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const URL = "https://news.example.com/2026/11/ospreys-return";

/** A story, then `depth` unclosed wrappers (a broken template, or a hostile page) holding its last paragraph. */
const nested = (depth: number) => `<html><head><title>Ospreys return</title></head><body><article>
  <h1>Ospreys return to the river</h1>${para("osprey", 4)}
  ${"<div class='wrap'><span>".repeat(depth)}<p>The last pair nested on the old bridge this spring, the wardens said.</p>${"</span></div>".repeat(depth)}
  </article></body></html>`;

/** The deepest element's depth under the document's root (<html> is 1), walked without recursion. */
function maxDepth(doc: Document): number {
  let max = 0;
  const stack: [Element, number][] = [[doc.documentElement, 1]];
  while (stack.length > 0) {
    const [el, d] = stack.pop() as [Element, number];
    max = Math.max(max, d);
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) stack.push([c, d + 1]);
  }
  return max;
}

describe("nesting capped as a browser caps it (nesting.ts)", () => {
  it("a page nested thousands of elements deep is read, not lost to a stack overflow, in every format (markdown, html, json)", () => {
    const html = nested(5000);
    const { text } = extractMainText(html, URL);
    expect(text).toContain("osprey note number 4");
    expect(text).toContain("The last pair nested on the old bridge");
    for (const format of ["markdown", "html", "json"] as const) {
      const out = extractHtml(html, { url: URL, format, links: true, imageLinks: false });
      expect(out.ok).toBe(true);
      expect(JSON.stringify(out)).toContain("The last pair nested on the old bridge");
    }
  });

  it("the parsed document nests no deeper than MAX_DEPTH, and what lay deeper keeps its order", () => {
    const doc = parseDocument(
      `<html><body>${"<div>".repeat(MAX_DEPTH + 300)}<p>first</p><ul><li>second</li></ul>third${"</div>".repeat(MAX_DEPTH + 300)}<p>after</p></body></html>`,
    );
    expect(maxDepth(doc)).toBeLessThanOrEqual(MAX_DEPTH);
    expect((doc.body.textContent ?? "").replace(/\s+/g, " ").trim()).toBe("firstsecondthirdafter");
  });

  it("an element past the cap with 150,000 children is flattened, not lost to a stack overflow (the children were spread into one call)", () => {
    const doc = parseDocument(
      `<html><body>${"<div>".repeat(MAX_DEPTH + 10)}<ul>${"<li>item".repeat(150_000)}</ul><p>after</p></body></html>`,
    );
    expect(maxDepth(doc)).toBeLessThanOrEqual(MAX_DEPTH);
    const items = doc.querySelectorAll("li");
    expect(items.length).toBe(150_000);
    expect(doc.body.textContent).toBe(`${"item".repeat(150_000)}after`);
  });

  it("a page within the cap is left exactly as parsed (a list 100 elements deep stays a list)", () => {
    const html = `<html><body>${"<div>".repeat(100)}<ul><li>one</li><li>two</li></ul>${"</div>".repeat(100)}</body></html>`;
    const doc = parseDocument(html);
    const before = doc.body.innerHTML;
    capNesting(doc);
    expect(doc.body.innerHTML).toBe(before);
    expect(maxDepth(doc)).toBe(104);
    expect(doc.querySelectorAll("ul > li").length).toBe(2);
  });
});
