import { describe, expect, it } from "vitest";
import { cleanupRoot } from "../../../functions/extract/content/cleanup.ts";
import { scoreTree } from "../../../functions/extract/content/score.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://shop.example.com/detail/lamp") => extractMainText(html, url).text;

describe("menus larger than the page", () => {
  // Every category and its subcategories spelled out, as spans (links are set by scripts), and a
  // one-line contact note: more text than the product page itself.
  const categories = ["Guitars", "Basses", "Amplifiers", "Drums", "Keyboards", "Microphones", "Lighting", "Software"];
  const megaMenu = `<nav class="site-nav">${categories
    .map(
      (c) =>
        `<div class="mn-col"><span class="mn-head">${c}</span>${Array.from({ length: 12 }, (_, i) => `<span class="mn-item">${c} subcategory ${i + 1}</span>`).join(" ")}</div>`,
    )
    .join("")}<p>Contact your sales engineer</p></nav>`;

  it("drops a mega menu that holds most of the page's text", () => {
    const html = `<html><body><header class="site-header">${megaMenu}</header><main><h1>Desk lamp</h1><div class="price">$49.00</div>${para("lamp", 2)}</main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the lamp works");
    expect(t).not.toContain("Drums subcategory 3");
  });

  it("keeps a <nav> that wraps the page's paragraphs", () => {
    const html = `<html><body><nav class="layout"><div class="col"><h2>Guide</h2>${para("river", 4)}${para("delta", 4)}</div><a href="/next">Next</a></nav><footer><a href="/">Home</a></footer></body></html>`;
    const t = text(html, "https://example.com/guide");
    expect(t).toContain("how the river works");
    expect(t).toContain("how the delta works");
  });
});

describe("page footers larger than the page", () => {
  const disclosure = (i: number) =>
    `<p>Disclosure ${i}: coverage is subject to policy terms, conditions and exclusions, prices vary by state and by the age of the insured, and the discounts shown are not available everywhere or to everyone who applies.</p>`;
  const footer = (inner = "") =>
    `<footer class="footer"><ul class="links"><li><a href="/contact">Contact us</a></li><li><a href="/privacy">Privacy</a></li><li><a href="/terms">Terms of use</a></li></ul>${inner}<div class="copyright">Copyright 1995 - 2025 Example Insurance Company. All rights reserved.</div><div class="disclosures">${[1, 2, 3, 4, 5, 6].map(disclosure).join("")}</div></footer>`;

  it("drops the page's own footer with its copyright line and disclosures, however long", () => {
    const html = `<html><body><div class="site"><div class="hero"><h1>Pet insurance</h1>${para("policy", 3)}</div>${footer()}</div></body></html>`;
    const t = text(html, "https://www.example.com/pet-insurance/");
    expect(t).toContain("how the policy works");
    expect(t).not.toContain("Disclosure 3");
    expect(t).not.toContain("All rights reserved");
  });

  it("drops a page footer without a copyright line: an SEO blurb about the business", () => {
    const blurb = `<footer><div class="about"><h2>Party rentals in Los Angeles</h2>${para("rental", 8)}</div></footer>`;
    const html = `<html><body><div class="home"><h1>Fitness equipment</h1>${para("treadmill", 2)}</div>${blurb}</body></html>`;
    const t = text(html, "https://www.example.com/rentals/fitness");
    expect(t).toContain("how the treadmill works");
    expect(t).not.toContain("how the rental works");
  });

  it("keeps a footer that holds the page's h1", () => {
    const html = `<html><body>${footer(`<section><h1>Pet insurance</h1>${para("policy", 6)}</section>`)}</body></html>`;
    const t = text(html, "https://www.example.com/pet-insurance/");
    expect(t).toContain("how the policy works");
  });
});

describe("consent dialogs that read like paragraphs", () => {
  const policy = `<div id="consent-sdk" class="show-banner"><div class="policy">${para("cookie purpose", 5)}${para("vendor list", 5)}</div><a href="/privacy">Privacy notice</a></div>`;

  it("drops a consent manager's long policy text", () => {
    const html = `<html><body><main><h1>Dinner recipes</h1>${para("recipe", 6)}${para("sauce", 6)}</main>${policy}</body></html>`;
    const t = text(html, "https://www.example.com/recipes/dinner");
    expect(t).toContain("how the recipe works");
    expect(t).not.toContain("how the cookie purpose works");
  });

  it("keeps a wrapper named for consent that holds most of the page", () => {
    const html = `<html><body><div class="consent-page"><h1>Research consent</h1>${para("study", 6)}${para("withdrawal", 6)}</div><div class="note">Last updated in May.</div></body></html>`;
    const t = text(html, "https://www.example.com/study/consent");
    expect(t).toContain("how the study works");
    expect(t).toContain("how the withdrawal works");
  });
});

describe("site menus printed inside the content", () => {
  // Labels over sub-menus, as WordPress prints them: each top entry reads like a grid item (enough
  // text, one class), so the link-list rule keeps them; the menu-item class says what they are.
  const items = ["Lawn mowers", "String trimmers", "Hedge trimmers", "Chainsaws", "Leaf blowers", "Snow blowers"];
  const groups = ["Mowers", "Trimmers", "Blowers", "Batteries"];
  const cleaned = (list: (cls: string) => string) => {
    const doc = parseDocument(
      `<html><body><div><h1>Mowers</h1>${list("menu-item")}<p>Our robotic mowers cut the lawn on their own, day and night.</p>${list("entry")}</div></body></html>`,
    );
    const stats = scoreTree(doc.body);
    cleanupRoot(doc.body, stats, { article: false, grids: true, shop: false });
    return doc.body.textContent ?? "";
  };
  const nested = (cls: string) => {
    const sub = (g: string) =>
      `<ul class="level-two">${items.map((t) => `<li class="${cls} ${cls}-type-custom"><a href="/${g}/${t}">${g} ${cls} ${t}</a></li>`).join("")}</ul>`;
    return `<ul class="level-one">${groups.map((g) => `<li class="${cls} ${cls}-has-children"><span>${g}</span>${sub(g)}</li>`).join("")}</ul>`;
  };

  it("drops a list whose entries are classed menu-item (a WordPress menu) and keeps the same list classed otherwise", () => {
    const t = cleaned(nested);
    expect(t).not.toContain("Trimmers menu-item String trimmers");
    expect(t).toContain("Trimmers entry String trimmers");
    expect(t).toContain("cut the lawn on their own");
  });
});
