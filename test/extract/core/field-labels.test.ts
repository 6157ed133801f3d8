import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const shoes: [string, string, string, string][] = [
  ["Trailmark", "Ridge Runner 3", "Slate/Lime", "$118"],
  ["Northfold", "Cadence Knit", "Black/White", "$96"],
  ["Pacefield", "Tempo Glide 2", "Sea Salt", "$134"],
  ["Trailmark", "Canyon Low", "Rust", "$89"],
  ["Lakeside", "Daybreak Trainer", "Oat/Navy", "$105"],
];

/** A shop card marked up as a description list: each value under a label printed on every card. */
const card = ([brand, name, color, price]: [string, string, string, string], i: number) =>
  `<article class="tile"><a href="/p/${i}"><img src="/i/${i}.jpg" alt="">
  <dl><dt>Brand Name</dt><dd>${brand}</dd><dt>Product Name</dt><dd>${name}</dd><dt>Color</dt><dd>${color}</dd><dt>Price</dt><dd>${price}</dd></dl></a></article>`;

describe("field labels on every card of a grid", () => {
  it("the labels a card's description list repeats ('Brand Name', 'Price') go; the values stay", () => {
    const html = `<html><body><main><h1>Women's sneakers</h1><div class="results">${shoes.map(card).join("")}</div></main></body></html>`;
    const t = text(html, "https://shoes.example.com/women-sneakers");
    for (const [brand, name, color, price] of shoes) {
      expect(t).toContain(name);
      expect(t).toContain(color);
      expect(t).toContain(price);
      expect(t).toContain(brand);
    }
    expect(t).not.toContain("Brand Name");
    expect(t).not.toContain("Product Name");
    expect(count(t, "Price")).toBe(0);
  });

  it("keeps a glossary's terms, a single spec list's labels and a list of one field per entry", () => {
    const glossary = [
      ["Heel drop", "The difference in height between the heel and the forefoot of a shoe, in millimetres."],
      ["Stack height", "How much material sits between the foot and the ground, measured at the heel."],
      ["Last", "The foot-shaped form a shoe is built around; it sets the fit and the volume of the upper."],
    ]
      .map(([t, d]) => `<dt>${t}</dt><dd>${d}</dd>`)
      .join("");
    const specs = "<dl><dt>Weight</dt><dd>260 g</dd><dt>Drop</dt><dd>8 mm</dd><dt>Upper</dt><dd>Engineered mesh</dd></dl>";
    // A "Colour" label on three lists of one field each: no card of many fields.
    const swatches = ["Ember", "Fjord", "Moss"].map((c) => `<dl><dt>Colour</dt><dd>${c}</dd></dl>`).join("");
    const html = `<html><body><main><h1>Running shoe terms</h1>
      <p>Shoe pages use a handful of words that are rarely explained. This guide says what each one means and why it matters when you choose a pair for road or trail running.</p>
      <dl>${glossary}</dl>${specs}${swatches}</main></body></html>`;
    const t = text(html, "https://shoes.example.com/guides/terms");
    for (const term of ["Heel drop", "Stack height", "Last", "Weight", "Drop", "Upper"]) expect(t).toContain(term);
    expect(count(t, "Colour")).toBe(3);
  });
});
