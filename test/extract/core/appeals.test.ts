import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>How a river changes course</h1><div class="body">${para("meander", 4)}${para("levee", 4)}${para("delta", 4)}${para("silt", 4)}</div>${tail}</article></main></body></html>`,
    "https://example.org/how-a-river-changes-course",
  ).text;

describe("appeals for readers' support under a story", () => {
  it("drops the publisher's box asking readers to donate", () => {
    const t = page(
      `<div class="cta"><p class="cta-title">This story is funded by readers like you</p><p>Our non-profit newsroom covers rivers free of charge. Your donations keep us going.</p><a class="button" href="/donate">Donate now</a></div>`,
    );
    expect(t).toContain("how the silt works");
    expect(t).not.toContain("funded by readers like you");
    expect(t).not.toContain("Our non-profit newsroom");
  });

  it("drops a plain closing paragraph that asks readers to support the site", () => {
    const t = page(
      "<p>These interviews are expensive to produce. If you enjoyed this one, please support us by donating a small amount.</p>",
    );
    expect(t).not.toContain("expensive to produce");
  });

  it("keeps a paragraph of a story about donations (to a charity, not to the site)", () => {
    const t = page(
      "<p>After the flood the town collected donations of food and clothes for the families whose houses the river had taken.</p>",
    );
    expect(t).toContain("collected donations of food and clothes");
  });

  it("keeps an appeal that opens the page before any story (a membership page's own text)", () => {
    const t = extractMainText(
      `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Become a member</h1><p>We need your support: readers like you fund every story we publish, and members keep the site free for all.</p>${para("membership", 3)}</article></main></body></html>`,
      "https://example.org/become-a-member",
    ).text;
    expect(t).toContain("readers like you fund every story");
  });
});
