import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const page = (n: number) => {
  const tiles = Array.from(
    { length: n },
    (_, i) =>
      `<li class="tile"><a class="tile-link" href="/p/${i}"><span class="name">Earhoops ${i}</span></a><div class="material">Sterling silver</div><div class="price">$${400 + i}.00</div></li>`,
  ).join("");
  return `<html><head><title>Silver earrings</title></head><body><div class="page"><div class="category-page-list">
    <div class="head"><h1>Silver earrings</h1></div>
    <ul class="grid">${tiles}</ul>
    <div class="search-result-options"><span>Showing ${n} of 84</span> <a href="?start=${n}">Show more</a></div>
    <section class="article"><article><h2>Our world of silver earrings</h2>
    <p>Earrings are the small detail that finishes an outfit, from a plain pair of studs for the office to long drops for an evening out, and silver suits them all.</p>
    <p>Simple hoops or studs are the classic choice for the day, but they need not be plain: many of ours have organic forms, and many come as clips for ears without piercings.</p>
    </article></section></div></div></body></html>`;
};
const text = (n: number) => extractMainText(page(n), "https://example.com/jewelry/silver-earrings").text;

describe("a category page's short text beside its entries", () => {
  it("keeps the entries when the text holds over a quarter of the page but is still its smaller part", () => {
    const t = text(16);
    expect(t).toContain("Earhoops 15");
    expect(t).toContain("$415.00");
    expect(t).toContain("silver suits them all");
  });

  it("leaves a text that holds half of the page alone", () => {
    const t = text(6);
    expect(t).toContain("silver suits them all");
    expect(t).not.toContain("Earhoops 5");
  });
});
