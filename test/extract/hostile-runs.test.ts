import { describe, expect, it } from "vitest";
import { extractHtml, extractMainText } from "../../functions/extract/extract.ts";

/**
 * Pages built so that one rule's time grows with the square of a run or a count (found by timing
 * shapes, `npm run bench -- extraction`): each took from tens of seconds to minutes before, past
 * this suite's timeout, and a fetch worker would have stalled on it. Each case checks what the
 * page gives, so the bound cannot have changed the result.
 */
const url = "https://example.com/hostile";
const para = (i: number) => `<p>Paragraph ${i} of the article says something of its own about the subject at hand.</p>`;
const article = (body: string, head = "") =>
  `<!doctype html><html><head><title>Hostile</title>${head}</head><body><article><h1>Hostile</h1>${Array.from(
    { length: 12 },
    (_, i) => para(i),
  ).join("")}${body}</article></body></html>`;

describe("runs and counts that were quadratic", () => {
  it("a <pre> holding a million spaces between two words keeps the block (markdown, html, json)", () => {
    const html = article(`<pre>start${" ".repeat(1_000_000)}end\n\t\n</pre>`);
    const md = extractHtml(html, { url, format: "markdown", links: true, imageLinks: true });
    expect(md.ok && typeof md.page.text === "string" && md.page.text).toMatch(/```\nstart {1000000}end\n```/);
    for (const format of ["html", "json"] as const) {
      const out = extractHtml(html, { url, format, links: true, imageLinks: true });
      expect(out.ok && JSON.stringify(out.page.text)).toContain(`start${" ".repeat(1_000_000)}end`);
    }
  });

  it("a byline followed by a long run of separators is not an author, and the page still reads", () => {
    const html = article(`<p class="byline">By Ann ${"| — ".repeat(200_000)}Lee</p>`);
    const { text, metadata } = extractMainText(html, url);
    expect(metadata.author).toBeNull();
    expect(text).toContain("Paragraph 11 of the article");
    // The ordinary case still reads: the separators trailing a name go.
    expect(extractMainText(article('<p class="byline">By Ann Lee | </p>'), url).metadata.author).toBe("Ann Lee");
  });

  it("a glossary of 30,000 terms keeps each term (said once, not a card's label)", () => {
    const terms = Array.from({ length: 30_000 }, (_, i) => `<dt>Term ${i}</dt><dd>What term ${i} means, in a sentence.</dd>`);
    const { text } = extractMainText(article(`<dl>${terms.join("")}</dl>`), url);
    expect(text).toContain("Term 0");
    expect(text).toContain("Term 29999");
    expect(text).toContain("What term 29999 means");
  });

  it("a table cell's code with a long run of spaces keeps one space; a run holding a line break becomes one <br>", () => {
    const html = article(
      `<table><tr><th>K</th><th>V</th></tr><tr><td><pre>a${" ".repeat(500_000)}b</pre></td><td>one${" ".repeat(1000)}<br>${" ".repeat(1000)}two</td></tr></table>`,
    );
    const md = extractHtml(html, { url, format: "markdown", links: true, imageLinks: true });
    const text = md.ok && typeof md.page.text === "string" ? md.page.text : "";
    expect(text).toContain("| `a b` | one<br>two |");
  });
});
