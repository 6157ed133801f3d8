import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const items: [string, string, string][] = [
  ["Canvas Gear Bag, Large", "40.00", "28.00"],
  ["Canvas Gear Bag, Small", "32.00", "22.40"],
  ["Camp Cutlery Roll", "60.00", "42.00"],
  ["Folding Dining Set", "210.00", "147.00"],
];

/**
 * A shop theme's sale price: struck and new prices for the eye (aria-hidden), a sentence for
 * screen readers (clipped out of sight) beside each.
 */
const card = ([name, was, now]: [string, string, string], i: number) => `<li class="product">
  <a href="/product/${i}"><img src="/i/${i}.jpg" alt=""><h2 class="title">${name}</h2></a>
  <span class="price"><del aria-hidden="true"><span class="amount">$${was}</span></del>
  <span class="screen-reader-text">Original price was: $${was}.</span><ins aria-hidden="true"><span class="amount">$${now}</span></ins>
  <span class="screen-reader-text">Current price is: $${now}.</span></span>
  <a href="/product/${i}" class="more">Read more<span class="screen-reader-text"> about ${name}</span></a></li>`;

const page = `<html><body><main><h1>Outdoor gear</h1><ul class="products">${items.map(card).join("")}</ul></main></body></html>`;

describe("a card's price said to screen readers beside the price shown", () => {
  it("on a category page the screen reader's sentence stays, so each card keeps its price once", () => {
    const t = text(page, "https://gear.example.com/shop/outdoor-gear/");
    for (const [name, was, now] of items) {
      expect(t).toContain(name);
      expect(t).toContain(`Original price was: $${was}.`);
      expect(t).toContain(`Current price is: $${now}.`);
      expect(t.split(`$${now}`).length - 1).toBe(1);
    }
  });

  it("screen-reader text with nothing shown in its place ('about <name>') still goes", () => {
    const t = text(page, "https://gear.example.com/shop/outdoor-gear/");
    for (const [name] of items) expect(t).not.toContain(`about ${name}`);
  });
});
