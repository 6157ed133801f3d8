import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Best design courses</h1>${body}</article></main></body></html>`,
    "https://www.example.com/best-design-courses",
  ).text;
const section = (title: string, href: string, topic: string) =>
  `<h3><a href="${href}"><strong>${title}</strong></a></h3>${para(topic, 3)}`;

describe("linked section titles in an article", () => {
  it("keeps a heading that links to another site over the section about it", () => {
    const t = text(
      `${para("intro", 3)}${section("1. Introduction to Typography", "https://www.coursera.org/learn/typography", "typography")}${section("2. Amazon Polly", "https://aws.amazon.com/polly/", "speech")}`,
    );
    expect(t).toContain("1. Introduction to Typography");
    expect(t).toContain("2. Amazon Polly");
    expect(t).toContain("how the typography works");
  });

  it("still drops a heading that links to another page of the site, as a teaser card's title", () => {
    const t = text(
      `${para("intro", 3)}${para("body", 3)}<div class="card"><h3><a href="https://www.example.com/other-post">How to group pantry items</a></h3>${para("pantry", 2)}</div>`,
    );
    expect(t).toContain("how the body works");
    expect(t).not.toContain("How to group pantry items");
  });

  it("still drops a heading opening a box, linking elsewhere with no prose under it", () => {
    const t = text(
      `${para("intro", 3)}${para("body", 3)}<div class="box"><h3><a href="https://partner.example.org/offer">Visit our partner</a></h3><ul><li>One</li></ul></div>`,
    );
    expect(t).not.toContain("Visit our partner");
  });

  it("keeps headings that are permalinks to themselves", () => {
    const t = text(
      `${para("intro", 3)}<h2 id="the-good"><a href="#the-good">The Good</a></h2><h3 id="language-design"><a href="#language-design">Language Design</a></h3>${para("design", 3)}`,
    );
    expect(t).toContain("The Good");
    expect(t).toContain("Language Design");
  });

  it("keeps a linked item title that follows the previous item's prose, wherever it links", () => {
    const t = text(
      `${para("intro", 3)}<h3><a href="https://www.example.com/reviews/purple-carrot">1. Purple Carrot</a></h3>${para("carrot", 3)}<h3><a href="/reviews/green-chef">2. Green Chef</a></h3><ul><li>Organic meals</li><li>Keto plans</li></ul>`,
    );
    expect(t).toContain("2. Green Chef");
  });
});
