import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const DEK = "The government has unveiled a plan to help the solar industry cut the cost of its panels by half.";
const page = (head: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"><meta name="description" content="${DEK}"></head><body><main><article>
    <h1>A plan for cheaper panels</h1>${head}<div class="byline">By Jane Doe</div><div class="body">${para("panel", 3)}${para("subsidy", 3)}</div></article></main></body></html>`,
    "https://example.com/news/cheaper-panels",
  ).text;

describe("standfirsts that repeat the page's description", () => {
  it("drops a dek-classed block ahead of the story whose text is the description", () => {
    for (const head of [`<p class="c-entry-summary p-dek">${DEK}</p>`, `<div class="article-lead-text"><p>${DEK}</p></div>`]) {
      const t = page(head);
      expect(t).toContain("how the panel works");
      expect(t, head).not.toContain("unveiled a plan");
    }
  });

  it("keeps a lead paragraph the description repeats when it is a plain paragraph of the story", () => {
    expect(page(`<p>${DEK}</p>`)).toContain("unveiled a plan");
  });

  it("keeps a summary block that says something other than the description", () => {
    expect(
      page(`<p class="summary">Ministers want panels made at home within five years, officials said on Monday.</p>`),
    ).toContain("Ministers want panels");
  });
});
