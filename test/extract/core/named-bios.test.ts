import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

// No author metadata: the card names its person itself.
const page = (tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Hiring an enterprise sales team</h1><div class="body">${para("pipeline", 4)}${para("quota", 4)}${para("territory", 4)}</div>${tail}</article></main></body></html>`,
    "https://example.com/blog/enterprise-sales-team",
  ).text;
const card = `<div class="writer"><img src="/team/elliot.jpg" alt=""><div><h4>Elliot Raba</h4><p>Enterprise Sales Executive</p><p>Elliot is a dynamic and results-driven sales executive who has closed deals with the largest retailers in the country.</p></div></div>`;

describe("an author card under the story, named by its own name line", () => {
  it("drops the closing card: a name on its own line and a bio that opens with it", () => {
    const t = page(card);
    expect(t).toContain("how the territory works");
    expect(t).not.toContain("results-driven sales executive");
    expect(t).not.toContain("Enterprise Sales Executive");
  });

  it("keeps the same card shape when the story goes on after it (an entry of a list of profiles)", () => {
    const t = page(`${card}${para("onboarding", 3)}`);
    expect(t).toContain("results-driven sales executive");
    expect(t).toContain("how the onboarding works");
  });

  it("keeps a closing paragraph that opens with someone's name, without a name line beside it", () => {
    const t = page(
      "<p>Elliot Raba is a sales executive who closed our first enterprise deal, and his notes shaped every step above.</p>",
    );
    expect(t).toContain("Elliot Raba is a sales executive");
  });
});
