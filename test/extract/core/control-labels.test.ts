import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const cameras = [
  "Nikon Z5 II Mirrorless Camera",
  "Canon EOS R8 Mirrorless Camera",
  "Sony Alpha a7 IV Camera",
  "Fujifilm X-T5 Camera",
  "Panasonic Lumix S5 II Camera",
];

/** A shop card with a "Compare" checkbox: the box after the image, its label after the box. */
const card = (name: string, i: number) => `<div class="product-card"><a href="/p/${i}"><img src="/i/${i}.jpg" alt=""></a>
  <div class="compare"><input type="checkbox" id="cmp-${i}"><label for="cmp-${i}">Compare</label></div>
  <h3><a href="/p/${i}">${name}</a></h3><div class="price">$1,${i}99.00</div>
  <label class="add"><input type="checkbox" name="pick"> Add to list</label></div>`;

const page = (main: string) => `<html><body><main><h1>Mirrorless cameras</h1>${main}</main></body></html>`;

describe("checkbox labels on every card", () => {
  it("a 'Compare' box's label on each card goes with its box", () => {
    const t = text(
      page(`<div class="grid">${cameras.map(card).join("")}</div>`),
      "https://shop.example.com/c/mirrorless-cameras",
    );
    for (const c of cameras) expect(t).toContain(c);
    expect(t).not.toContain("Compare");
    expect(t).not.toContain("Add to list");
  });

  it("keeps a checklist's items, a radio button's options and a lone box's label", () => {
    const items = ["Passport and visa", "Travel insurance card", "Phone charger", "Rain jacket", "First aid kit"]
      .map((x, i) => `<li><input type="checkbox" id="item-${i}"><label for="item-${i}">${x}</label></li>`)
      .join("");
    const sizes = ["Small", "Medium", "Large"]
      .map((x, i) => `<input type="radio" name="size" id="s${i}"><label for="s${i}">${x}</label>`)
      .join("");
    const html =
      page(`<p>Before you leave for the airport, go through this list, tick each thing as it goes in the bag, and keep the list for the trip home.</p>
      <ul class="checklist">${items}</ul><div class="sizes">${sizes}</div><label><input type="checkbox"> Pack the night before</label>`);
    const t = text(html, "https://travel.example.com/guides/packing-list");
    for (const x of ["Passport and visa", "Travel insurance card", "Phone charger", "Rain jacket", "First aid kit"])
      expect(count(t, x)).toBe(1);
    for (const x of ["Small", "Medium", "Large"]) expect(t).toContain(x);
    expect(t).toContain("Pack the night before");
  });

  it("a scripted button on every card ('Add to wishlist') goes; a topic picker's buttons and an accordion's toggles stay", () => {
    const games = ["Hollow Knight", "Stardew Valley", "Celeste", "Hades", "Dead Cells"];
    const cards = games
      .map(
        (g, i) =>
          `<div class="game"><a href="/app/${i}">${g}</a><span class="price">$1${i}.99</span><div role="button" tabindex="0"><svg></svg><div class="label">Add to wishlist</div></div></div>`,
      )
      .join("");
    const topics = ["Substance Use Disorder", "Post-Traumatic Stress Disorder", "Pain Management", "Sleep and Insomnia"]
      .map((t) => `<div role="button" tabindex="0">${t}</div>`)
      .join("");
    const faq = ["Can I return a game?", "Can I return a game?", "Can I return a game?"]
      .map(
        (q, i) =>
          `<div role="button" aria-expanded="false" aria-controls="a${i}">${q}</div><div id="a${i}"><p>Yes, within two weeks of purchase.</p></div>`,
      )
      .join("");
    const html = page(`<div class="grid">${cards}</div><div class="topics">${topics}</div><div class="faq">${faq}</div>`);
    const t = text(html, "https://store.example.com/category/indie");
    for (const g of games) expect(t).toContain(g);
    expect(t).not.toContain("Add to wishlist");
    for (const x of ["Substance Use Disorder", "Post-Traumatic Stress Disorder", "Pain Management"]) expect(t).toContain(x);
    expect(count(t, "Can I return a game?")).toBe(3);
  });
});
