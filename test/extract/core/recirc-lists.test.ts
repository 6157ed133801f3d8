import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const recipes = [
  "Seven Chicken Thigh Dinners for Every Night",
  "Twenty Easy One-Pot Rice Dinners",
  "Fifteen Vintage Casseroles Worth a Comeback",
  "Ten Copycat Soups You Can Make at Home",
  "Eight Chicken and Orzo Recipes We Love",
  "Fifty Easy Dinners for Your Baking Pan",
  "Ten Louisiana Gumbo Recipes Readers Love",
  "Thirty Casseroles You Will Make Forever",
  "Twenty-Five Winter Dinners for Cold Nights",
  "Twelve Sheet Pan Suppers for Busy Weeks",
  "Nine Slow Cooker Stews for the Weekend",
  "Eighteen Meatless Mains for Monday",
];

const card = (title: string, i: number) =>
  `<a class="card" href="https://food.example.com/r/${i}"><div class="card__top"><img src="/i/${i}.jpg" alt=""></div>
  <div class="card__content"><span class="card__type">Collection</span><span class="card__title">${title}</span></div></a>`;

/** A category page's list served in chunks named "recirc-list", an ad between the chunks. */
const chunked = (items: string[]) => {
  const chunks: string[] = [];
  for (let i = 0; i < items.length; i += 6)
    chunks.push(
      `<div class="recirc-list-container"><div class="recirc-list card-list">${items
        .slice(i, i + 6)
        .map((t, j) => card(t, i + j))
        .join("")}</div><div class="ad-slot"></div></div>`,
    );
  return chunks.join("");
};

describe("a page's own list named as recirculation", () => {
  it("a category page's entries in 'recirc-list' chunks that hold most of <main> are the content", () => {
    const ld = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"ItemList","name":"Dinner Recipes"}</script>`;
    const html = `<html><head>${ld}</head><body><header><a href="/">Home</a></header><main>
      <h1>Dinner Recipes</h1><p>What's for dinner? Popular five-star dinner recipes.</p>
      <section class="spotlight"><h2>What's For Dinner?</h2><a class="card" href="/x"><div>The Five Best Beef Taco Recipes</div></a></section>
      <h2>Explore Dinner Recipes</h2><div class="article-list-group">${chunked(recipes)}</div></main>
      <footer>About us</footer></body></html>`;
    const t = text(html, "https://food.example.com/recipes/dinner/");
    for (const r of recipes) expect(t).toContain(r);
  });

  it("a 'related' grid that holds less than half of <main> under an article still goes", () => {
    const body = Array.from(
      { length: 6 },
      (_, i) =>
        `<p>Paragraph ${i + 1} of the story: the council met on Tuesday evening and voted to keep the river path open through the winter, after a long debate about lighting, cost and the safety of cyclists.</p>`,
    ).join("");
    const html = `<html><body><main><article><h1>River path stays open</h1>${body}</article>
      <div class="related-posts"><h2>Related</h2>${chunked(recipes.slice(0, 6))}</div></main></body></html>`;
    const t = text(html, "https://news.example.com/2025/01/river-path");
    expect(t).toContain("River path stays open");
    for (const r of recipes.slice(0, 6)) expect(t).not.toContain(r);
  });

  it("on a story page, a short brief's 'related' grid that outweighs it still goes", () => {
    const cards = recipes
      .map((t, i) => `<div class="card"><a href="/news/${i}">${t}</a><span>Jan ${i + 1}, 2025</span></div>`)
      .join("");
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>River path stays open</h1>
      <p>The council met on Tuesday evening and voted to keep the river path open through the winter, after a long debate about lighting, cost and the safety of cyclists. The vote was seven to two.</p></article>
      <div class="related-stories"><h2>More news</h2><div class="grid">${cards}</div></div></main></body></html>`;
    const t = text(html, "https://news.example.com/2025/01/river-path");
    expect(t).toContain("seven to two");
    for (const r of recipes) expect(t).not.toContain(r);
  });
});
