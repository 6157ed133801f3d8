import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (top: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>The best bread machines</h1>${top}<div class="body">${para("loaf", 4)}${para("crust", 4)}${para("dough", 4)}</div></article></main></body></html>`,
    "https://example.com/best-bread-machines",
  ).text;

describe("commerce disclosures above or beside a story", () => {
  it("drops a block the theme names a disclosure that says the site earns from its links", () => {
    for (const [cls, note] of [
      [
        "review-disclosure",
        "We independently evaluate all of our recommendations. If you click on links we provide, we may receive compensation.",
      ],
      ["affiliate-disclosure__text", "When you buy through links on this page, we may earn a commission. Learn more."],
      ["header-disclosure", "Advertiser Disclosure"],
    ]) {
      const t = page(`<p class="${cls}">${note}</p>`);
      expect(t).toContain("how the dough works");
      expect(t, cls).not.toContain((note ?? "").slice(0, 30));
    }
  });

  it("keeps a writer's own affiliate note in a paragraph of the post (no disclosure class)", () => {
    const t = page(
      "<p>This post contains affiliate links: I earn a small commission if you buy through them, at no cost to you.</p>",
    );
    expect(t).toContain("This post contains affiliate links");
  });

  it("keeps a collapsible 'disclosure' panel of the page that says nothing of commissions", () => {
    const t = page(
      `<details class="disclosure disclosure--row"><summary>Care and storage</summary><p>Keep the machine dry, wipe the pan after each loaf and store the paddle inside the pan so it is not lost.</p></details>`,
    );
    expect(t).toContain("wipe the pan after each loaf");
  });
});
