import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const cards = Array.from(
  { length: 8 },
  (_, i) =>
    `<div class="card"><a href="/p/${i}">Solid oak side table model ${i}</a><span class="price">$${120 + i}.00</span><p>Hand finished oak, ${40 + i} cm wide, with a drawer, a shelf and brass handles.</p></div>`,
).join("");

/** A category page: the grid in a container, and a short line beside the container in the body. */
const page = (beside: string) =>
  `<html><head><title>Side tables</title></head><body>
    <div class="promo-code">Your offer code: WEB2479</div>
    <div class="catalogue"><section class="results"><div class="grid">${cards}</div></section></div>
    ${beside}</body></html>`;

describe("the best subtree pulled up by leftovers beside its content", () => {
  it("leaves out short lines beside the one child that holds the content", () => {
    const t = text(
      page(`<div class="guarantee">Satisfaction guaranteed, secure shopping</div>`),
      "https://example.com/c/side-tables",
    );
    expect(t).toContain("Solid oak side table model 7");
    expect(t).not.toContain("WEB2479");
    expect(t).not.toContain("Satisfaction guaranteed");
  });

  it("keeps a heading or a paragraph of prose beside the content", () => {
    const intro = `<div class="about"><p>Our side tables are made in our own workshop, from oak felled in managed forests, and each one is finished by hand.</p></div>`;
    const t = text(page(intro), "https://example.com/c/side-tables");
    expect(t).toContain("Solid oak side table model 7");
    expect(t).toContain("made in our own workshop");
    const headed = text(
      page(`<div class="title"><h2>Side tables and nightstands</h2></div>`),
      "https://example.com/c/side-tables",
    );
    expect(headed).toContain("Side tables and nightstands");
  });
});
