import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Saving for a first home</h1><div class="body">${para("deposit", 4)}${para("mortgage", 4)}${para("budget", 4)}${para("interest rate", 4)}${tail}</div></article></main></body></html>`,
    "https://example.com/blog/saving-for-a-first-home",
  ).text;

describe("the site's disclaimer closing an article", () => {
  it("drops a 'Disclaimer' heading and the fine print under it at the end of the story", () => {
    const t = page(
      `<div class="wrap"><div class="head"><h3>Disclaimer</h3></div><div class="txt"><p>This blog is provided for general informational purposes only and does not constitute legal or financial advice.</p><p>No relationship is created with you, nor any duty of care assumed to you.</p></div></div>`,
    );
    expect(t).toContain("how the interest rate works");
    expect(t).not.toContain("Disclaimer");
    expect(t).not.toContain("duty of care");
  });

  it("drops a closing paragraph opened by a 'Disclaimer:' label, and the legal lines after it", () => {
    const t = page(
      `<p><strong>Disclaimer: </strong>The information contained herein is for informational purposes only and is not a substitute for legal counsel.</p><p>Securities are offered through Example Securities, Inc., member FINRA.</p>`,
    );
    expect(t).toContain("how the interest rate works");
    expect(t).not.toContain("informational purposes");
    expect(t).not.toContain("member FINRA");
  });

  it("drops a closing affiliate disclosure", () => {
    const t = page(
      "<p>Disclosure: some of my posts contain affiliate links. If you buy through one of them I may receive a small commission.</p>",
    );
    expect(t).not.toContain("small commission");
  });

  it("keeps a disclaimer set inside the story's last paragraph", () => {
    const t = page(
      `<p>Talk to us and see what better budgeting looks like.<strong>Disclaimer: </strong><em>The information contained herein is not intended to be construed as legal advice.</em></p>`,
    );
    expect(t).toContain("not intended to be construed as legal advice");
  });

  it("keeps the writer's own note headed so when it gives no advice and earns nothing ('I bought these myself')", () => {
    const t = page(
      "<h2>Disclaimer</h2><p>I bought every savings app in this guide myself and tested each one for a month before writing about it.</p>",
    );
    expect(t).toContain("I bought every savings app");
  });

  it("keeps a section headed 'Disclosures' with the story's text after it", () => {
    const t = page(
      `<h2>Disclosures</h2><p>Lenders must tell you the annual percentage rate, which is not intended to match the headline rate.</p>${para("closing cost", 4)}${para("credit score", 4)}${para("lender fee", 4)}${para("down payment", 4)}`,
    );
    expect(t).toContain("Lenders must tell you the annual percentage rate");
    expect(t).toContain("how the down payment works");
  });
});
