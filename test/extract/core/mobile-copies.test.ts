import { describe, expect, it } from "vitest";
import { dropMobileCopies } from "../../../functions/extract/content/mobile-copies.ts";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { parseDocument } from "../../../functions/extract/parse.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/robot-vacuum-j7.html").text;
const count = (t: string, s: string) => t.split(s).length - 1;

/** A Bootstrap product page: the phone layout prints the name and the FAQ again in its own place. */
const page = (phone: string, desktop: string) => `<html><head><title>Robot vacuum</title>
  <script type="application/ld+json">{"@type":"Product","name":"Combo J7 robot vacuum and mop"}</script></head><body>
  <header class="site-header"><nav><a href="/">Home</a><a href="/vacuums">Vacuums</a></nav></header>
  <main><div class="container product-detail"><div class="row">
    <div class="col-md-6"><img src="/j7.jpg" alt=""></div>
    <div class="col-md-6">
      <div class="col-12 d-block d-lg-none product-name-mobile">${phone}</div>
      <div class="d-none d-lg-block">${desktop}</div><div class="price">$469.99</div>
      <div class="description">${para("vacuum mop", 3)}</div>
      <div class="accordion d-md-none"><h3>What is a combo robot?</h3><p>It vacuums and mops in one pass, then lifts its mop on carpet.</p></div>
      <div class="faq d-none d-md-block"><h3>What is a combo robot?</h3><p>It vacuums and mops in one pass, then lifts its mop on carpet.</p></div>
    </div>
  </div></div></main><footer><p>Copyright 2026 Example Robots.</p></footer></body></html>`;

describe("a phone layout's copies (Bootstrap d-*-none)", () => {
  it("a block hidden from a breakpoint up whose words stand elsewhere on the page goes", () => {
    const t = text(page("<h1>Combo J7 robot vacuum and mop</h1>", "<h1>Combo J7 robot vacuum and mop</h1>"));
    expect(count(t, "Combo J7 robot vacuum and mop")).toBeLessThanOrEqual(1);
    expect(count(t, "It vacuums and mops in one pass")).toBe(1);
    expect(t).toContain("vacuum mop note number 3");
  });

  it("a phone-only block with words of its own stays, and so does a block shown again from a larger breakpoint", () => {
    const t = text(
      page(
        "<p>Free next-day delivery on phones ordered before noon, with the charging dock included.</p>",
        `<h1>Combo J7 robot vacuum and mop</h1><p class="d-sm-none d-md-block">Ships with two spare brushes and a cleaning tool.</p>`,
      ),
    );
    expect(t).toContain("Free next-day delivery on phones ordered before noon");
    expect(t).toContain("Ships with two spare brushes");
  });
});

/**
 * A category page's guide, set for wide screens as sections and for phones as an accordion, each in
 * a page builder's component of one make (the paragraphs read as parts of sibling items there).
 */
const guide = (phoneExtra: string) => `<html><head><title>Carry-on luggage</title></head><body>
  <header class="site-header"><nav><a href="/">Home</a><a href="/luggage">Luggage</a></nav></header>
  <main><div class="container"><h1>Carry-on luggage</h1>
    <div class="component"><div class="d-none d-md-block guide"><h3>The essentials of carry-on luggage</h3>
      <h4>What is carry-on luggage?</h4><p>Carry-on luggage travels with you in the cabin, so your essentials stay within reach for the whole journey.</p>
      <h4>Sizes and limits</h4><p>Most airlines allow a case of about 22 by 14 by 9 inches, wheels and handles included, in the overhead bin.</p>
      <h4>Packing smarter</h4><p>Rolling clothes instead of folding them saves space and keeps shirts from creasing on the way.</p></div></div>
    <div class="component"><div class="accordion d-md-none">
      <div class="card"><button class="card-header">Open: what is carry-on luggage</button><div class="card-body collapse"><p>Carry-on luggage travels with you in the cabin, so your essentials stay within reach for the whole journey.</p></div></div>
      <div class="card"><button class="card-header">Open: sizes</button><div class="card-body collapse"><p>Most airlines allow a case of about 22 by 14 by 9 inches, wheels and handles included, in the overhead bin.</p>${phoneExtra}</div></div>
      <div class="card"><button class="card-header">Open: packing</button><div class="card-body collapse"><p>Rolling clothes instead of folding them saves space and keeps shirts from creasing on the way.</p></div></div>
    </div></div>
  </div></main><footer><p>Copyright 2026 Example Bags.</p></footer></body></html>`;

describe("a phone layout's copy set in another shape (an accordion of the desktop's sections)", () => {
  it("goes when the paragraphs that stand elsewhere hold most of its words", () => {
    const t = extractMainText(guide(""), "https://bags.example.com/luggage/carry-on").text;
    expect(count(t, "Carry-on luggage travels with you in the cabin")).toBe(1);
    expect(count(t, "Rolling clothes instead of folding them")).toBe(1);
    expect(t).toContain("Sizes and limits");
  });

  it("stays when most of its words are its own (a phone-only note beside one repeated paragraph)", () => {
    const own = `<p>On phones, tap a size to see the airlines that accept it, and save the list for check-in. Prices shown in the app include the member discount, and orders placed before noon ship the same day with free returns for thirty days.</p><p>The app also keeps your boarding passes, bag tags and trip notes in one place, ready offline at the gate, so you never have to look for a signal while you queue with your carry-on.</p>`;
    const t = extractMainText(guide(own), "https://bags.example.com/luggage/carry-on").text;
    expect(t).toContain("tap a size to see the airlines");
  });
});

describe("a phone layout's copies: the rule's work is bounded by the page's text", () => {
  // Each copy's words are searched for in the whole text: without a bound, n copies cost n times
  // the text (8,000 phone-only blocks took 1.5 s; the growth is in `npm run bench -- extraction`).
  const line = (i: number) => `Section ${i} explains how the robot handles carpet number ${i} with its lifted mop.`;
  const root = (n: number) =>
    parseDocument(`<main><div class="d-none d-md-block">${Array.from({ length: n }, (_, i) => `<p>${line(i)}</p>`).join("")}</div>
      ${Array.from({ length: n }, (_, i) => `<div class="d-md-none"><p>${line(i)}</p></div>`).join("")}</main>`).querySelector(
      "main",
    ) as Element;

  it("a page of many copies loses them all while the searches fit the budget", () => {
    const main = root(200);
    dropMobileCopies(main);
    expect(main.querySelectorAll(".d-md-none")).toHaveLength(0);
    expect(main.querySelectorAll("p")).toHaveLength(200);
  });

  it("past the budget (256 passes over the text) the remaining copies stay, in document order", () => {
    const main = root(400);
    dropMobileCopies(main);
    const left = [...main.querySelectorAll(".d-md-none")];
    expect(left).toHaveLength(400 - 256);
    expect(left[0]?.textContent).toBe(line(256));
  });

  it("copies nested in a copy are one copy: it goes whole", () => {
    const main = parseDocument(
      `<main><p>${line(1)}</p>${'<div class="d-md-none">'.repeat(300)}<p>${line(1)}</p>${"</div>".repeat(300)}</main>`,
    ).querySelector("main") as Element;
    dropMobileCopies(main);
    expect(main.querySelectorAll(".d-md-none")).toHaveLength(0);
    expect(main.textContent).toBe(line(1));
  });
});
