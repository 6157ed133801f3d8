import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

const coffees = [
  "Dark Roast Coffee",
  "Medium Roast Coffee",
  "Espresso Roast Coffee",
  "Vanilla Latte Twelve Pack",
  "Blueberry Coffee Beans",
];

/** A shop theme's card: the name over the image (for cards without one), under it, and a regular and a sale price. */
const card = (name: string, i: number) => `<li class="grid__item"><div class="card">
  <div class="card__inner"><a href="/p/${i}" class="media_link">${name}</a><div class="card__content"><h3 class="card__heading"><a href="/p/${i}">${name}</a></h3></div></div>
  <div class="card__content"><h3 class="card__heading h5"><a href="/p/${i}">${name}</a></h3>
  <div class="price"><div class="price__regular"><span>$1${i}.99</span></div><div class="price__sale"><span>$1${i}.99</span></div></div></div></div></li>`;

describe("cards of a grid that print their text twice", () => {
  it("keeps one copy of each card's name and price", () => {
    const html = `<html><body><main><h1>Coffee</h1><ul class="product-grid">${coffees.map(card).join("")}</ul></main></body></html>`;
    const t = text(html, "https://shop.example.com/collections/coffee");
    for (const [i, c] of coffees.entries()) {
      expect(count(t, c)).toBe(1);
      expect(count(t, `$1${i}.99`)).toBe(1);
    }
  });

  it("keeps values a table row or a card repeats in sibling cells, and the text cards share", () => {
    const rows = coffees
      .map((c, i) => `<tr><td><a href="/p/${i}">${c}</a></td><td>Whole bean</td><td>Whole bean</td></tr>`)
      .join("");
    const cards = coffees
      .map((c, i) => `<div class="entry"><h3><a href="/p/${i}">${c}</a></h3><span>In stock</span><span>In stock</span></div>`)
      .join("");
    const html = `<html><body><main><h1>Coffee</h1><table><tbody>${rows}</tbody></table><div class="entries">${cards}</div></main></body></html>`;
    const t = text(html, "https://shop.example.com/collections/coffee");
    expect(count(t, "Whole bean")).toBe(10);
    expect(count(t, "In stock")).toBe(10);
  });
});

describe("code in blocks read as cards", () => {
  // An API reference prints each method as a short section with a link (its source) and an
  // example: four or more such sections read as cards of a grid.
  const methods = ["is_ok", "is_err", "ok", "err", "unwrap"];
  const section = (m: string) =>
    `<details class="toggle method-toggle" open><summary><h4 class="code-header">pub fn <a href="#method.${m}">${m}</a>(&amp;self)</h4><a class="src" href="/src/result.rs.html">Source</a></summary><div class="docblock"><p>Calls ${m} on the result.</p><pre class="rust"><code><span class="kw">let </span>x = <span class="prelude-val">Ok</span>(2);\n<span class="kw">let </span>y = <span class="prelude-val">Ok</span>(3);</code></pre></div></details>`;

  it("keeps every token of an example, however often it repeats", () => {
    const html = `<html><body><main><h1>Enum Result</h1><div class="impl-items">${methods.map(section).join("")}</div></main></body></html>`;
    const t = text(html, "https://doc.example.org/std/result/enum.Result.html");
    expect(count(t, "let y = Ok(3);")).toBe(methods.length);
    expect(count(t, "let x = Ok(2);")).toBe(methods.length);
  });
});
