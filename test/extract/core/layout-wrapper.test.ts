import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const entries = (label: string) =>
  Array.from({ length: 30 }, (_, i) => `${label} recipe number ${i}`)
    .map((r, i) => `<article class="post-${100 + i} post"><h2 class="entry-title"><a href="/r/${i}">${r}</a></h2></article>`)
    .join("");
const menu = `<nav class="site-nav"><ul>${Array.from({ length: 40 }, (_, i) => `<li><a href="/c/${i}">Recipe category ${i}</a></li>`).join("")}</ul></nav>`;
const sidebar = `<aside class="sidebar-primary"><h3>Popular</h3><ul><li><a href="/p/1">Most loved banana bread recipe</a></li><li><a href="/p/2">Our favourite weeknight pasta</a></li></ul></aside>`;
/** A category's intro: prose with a few links, as long as the list of entries below it. */
const intro = `<div class="intro"><h1>Air fryer recipes</h1><p>Quick and healthy air fryer recipes, everything from breakfast to snacks to dinners, all of them tested at home.</p>
  <p>We love our air fryer and how it makes everything crispy and delicious in record time with little to no oil. <a href="/x">Air fryer french toast sticks</a> are a kid friendly breakfast.</p>
  <p>For meal prep, I love making <a href="/y">air fryer turkey bacon</a> and <a href="/z">air fryer hard boiled eggs</a>. And do not miss a reader favourite, <a href="/w">air fryer chicken thighs</a>!</p>
  <p>Still looking for an air fryer? Check out my picks in this post: <a href="/v">Which air fryer should you buy this year?</a></p></div>`;

describe("layout wrappers named for their sidebar", () => {
  it("keeps a wrapper that holds the page's <main> ('content-sidebar-wrap'), and drops the sidebar in it", () => {
    const html = `<html><body class="blog">${menu}${intro}<div class="site-inner"><div class="content-sidebar-wrap">
      <main class="content">${entries("Crispy air fryer")}</main>${sidebar}</div></div></body></html>`;
    const t = text(html, "https://example.com/category/air-fryer/");
    expect(t).toContain("Quick and healthy air fryer recipes");
    expect(t).toContain("Crispy air fryer recipe number 0");
    expect(t).toContain("Crispy air fryer recipe number 29");
    expect(t).not.toContain("banana bread");
  });

  it("still drops a sidebar that holds no <main>, however many links it lists", () => {
    const html = `<html><body class="blog">${menu}${intro}<main class="content">${entries("Crispy air fryer")}</main>
      <div class="sidebar-wrap"><div class="widget">${entries("Other site")}</div></div></body></html>`;
    const t = text(html, "https://example.com/category/air-fryer/");
    expect(t).toContain("Crispy air fryer recipe number 29");
    expect(t).not.toContain("Other site recipe");
  });
});
