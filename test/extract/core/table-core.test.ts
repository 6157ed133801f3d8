import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const row = (i: number) =>
  `<tr><td>${i}</td><td>School of Business number ${i} of the ranking</td><td>Previous rank ${i + 1} (tie)</td><td>Average salary $175,000</td></tr>`;
const table = (n: number) =>
  `<table><tbody><tr><th>Rank</th><th>Business school</th><th>Previous rank</th><th>Salary</th></tr>${Array.from({ length: n }, (_, i) => row(i + 1)).join("")}</tbody></table>`;
const page = (intro: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><div class="entry-content"><div class="views">1,693 views</div>${intro}${table(20)}<p>The part-time ranking:</p>${table(16)}</div></article><p class="note">Request a free consultation with our admissions team today, and get ahead of the next deadline.</p></main></body></html>`,
    "https://example.com/mba-rankings-2024",
  ).text;

describe("an article whose tables outvote its paragraphs", () => {
  it("keeps the paragraphs and both tables: a core without prose does not bound the article", () => {
    const t = page(
      "<p>MBA ranking reports in aggregate can help an applicant to see trends around program brand, and to set reach and safety schools.</p><p>The ranking data for the top twenty full-time programs can be found in the chart below, with dates and details.</p>",
    );
    expect(t).toContain("MBA ranking reports in aggregate");
    expect(t).toContain("School of Business number 20 of the ranking");
    expect(t).toContain("The part-time ranking");
  });

  it("still bounds an article whose core is its prose by the article element", () => {
    const t = page(`${para("ranking", 6)}${para("salary", 6)}${para("deadline", 6)}`);
    expect(t).toContain("how the deadline works");
    expect(t).not.toContain("Request a free consultation");
  });
});
