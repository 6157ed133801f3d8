import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://shop.example.com/p/studio-mic").text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Studio Mic"}</script>`;

/** The buy box: the name and a list of selling points (where the prose core lands). */
const buyBox = `<div class="buy"><h1>Studio Mic</h1><div class="price">$249.00</div><ul class="points">
  ${["Large capsule, warm tone.", "Low self-noise, clean takes.", "Cardioid pattern, tight pickup.", "Metal body, built to last.", "USB and XLR, both included.", "Shock mount, in the box."].map((p) => `<li>${p}</li>`).join("")}
  </ul></div>`;
/** A spec table beside the buy box: text, no prose. */
const specs = `<table class="specs">${["Capsule|1 inch", "Pattern|Cardioid", "Self-noise|4 dBA", "Output|XLR and USB-C", "Weight|326 g", "Colour|Black"].map((r) => `<tr><th>${r.split("|")[0]}</th><td>${r.split("|")[1]}</td></tr>`).join("")}</table>`;
/** The description further down: sections of prose, each in its page builder's wrappers. */
const story = (topics: string[]) =>
  topics
    .map(
      (t) =>
        `<section class="block"><div class="wrap"><div class="inner"><h3>About the ${t}</h3>${para(t, 2)}</div></div></section>`,
    )
    .join("");

describe("product root", () => {
  it("reaches the description sections below a non-prose block (spec table beside the buy box)", () => {
    const html = `<html><head>${PRODUCT_LD}</head><body><main><div class="top"><div class="row">${buyBox}${specs}</div></div>
      <div class="rich">${story(["capsule", "preamp", "housing"])}</div></main></body></html>`;
    const t = text(html);
    for (const want of ["Studio Mic", "Low self-noise", "Cardioid", "how the capsule works", "how the housing works"])
      expect(t).toContain(want);
  });

  it("does not grow over blocks that are mostly links (teasers of other pages below the product)", () => {
    const teasers = ["Mic placement guide", "Home studio on a budget", "Podcast setup in ten minutes", "Choosing a preamp"]
      .map(
        (t, i) =>
          `<li class="teaser"><a href="/blog/${i}">${t}: read the whole story on our blog, with photos and sound samples</a></li>`,
      )
      .join("");
    const html = `<html><head>${PRODUCT_LD}</head><body><main><div class="top"><div class="row">${buyBox}${specs}</div></div>
      <div class="more"><ul class="teasers">${teasers}</ul></div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("Low self-noise");
    expect(t).not.toContain("Home studio on a budget");
  });
  describe("sections titled by headings below a buy box with the description", () => {
    const described = buyBox.replace(
      "</ul></div>",
      `</ul><div class="desc"><p>The Studio Mic records voices and instruments with a warm, clear tone. Its large capsule catches every detail, and its low self-noise keeps quiet takes clean. It plugs into a computer by USB or into a mixer by XLR, and comes with a shock mount and a cable.</p><p>Its metal body is built to last for years of daily use in any studio, on stage or at home.</p></div></div>`,
    );
    it("grows over them: the titles do not count against the sections' prose", () => {
      const sections = ["capsule", "preamp", "housing"]
        .map(
          (t) =>
            `<section class="block"><h3>The ${t} designed for precision and strength in every studio</h3><p>The ${t} is made to last for years of daily use, and tuned by hand before it leaves the bench in our workshop.</p><ul><li>Tested twice</li><li>Two year warranty</li><li>Spare grille</li><li>Hand tuned</li></ul></section>`,
        )
        .join("");
      const t = text(
        `<html><head>${PRODUCT_LD}</head><body><main><div class="top">${described}</div><div class="rich">${sections}</div></main></body></html>`,
      );
      expect(t).toContain("The housing is made to last");
      expect(t).toContain("The housing designed for precision");
    });

    it("does not grow over a strip of cards that are all titles (other products)", () => {
      const cards = ["Studio Mic Mini", "Podcast Arm", "Pop Filter", "XLR Cable"]
        .map(
          (n, i) => `<div class="card"><h3><a href="/p/${i}">${n}</a></h3><h4>From $${19 + i}.00 with free shipping</h4></div>`,
        )
        .join("");
      const t = text(
        `<html><head>${PRODUCT_LD}</head><body><main><div class="top">${described}</div><div class="strip">${cards}</div></main></body></html>`,
      );
      expect(t).toContain("Its metal body is built to last");
      expect(t).not.toContain("Podcast Arm");
    });
  });
});

describe("option pickers outside the order form", () => {
  const picker = `<fieldset class="variant-input"><legend>Color</legend><div class="form__label">Color: <span>Black</span></div>
    <ul class="swatches"><li><label class="swatch">Black</label></li><li><label class="swatch">Copper</label></li><li><label class="swatch">Matte White</label></li></ul></fieldset>`;
  const page = (inner: string) => `<html><head>${PRODUCT_LD}</head><body><main><div class="product">${buyBox}${inner}
    <div class="rich">${story(["capsule", "preamp"])}</div></div></main></body></html>`;

  it("drops a fieldset of swatches beside the buy box, keeps the name and description", () => {
    const t = text(page(picker));
    for (const want of ["Studio Mic", "Low self-noise", "how the capsule works"]) expect(t).toContain(want);
    for (const gone of ["Copper", "Matte White"]) expect(t).not.toContain(gone);
  });

  it("keeps a fieldset that wraps the product's own text (a page built as one form)", () => {
    const t = text(`<html><head>${PRODUCT_LD}</head><body><main><fieldset class="product">${buyBox}
      <div class="rich">${story(["capsule", "preamp"])}</div></fieldset></main></body></html>`);
    for (const want of ["Studio Mic", "how the capsule works", "how the preamp works"]) expect(t).toContain(want);
  });
});

describe("product root and the page's one <main>", () => {
  const product = `<div class="product">${buyBox}<div class="about">${para("microphone", 3)}</div></div>`;
  const beside = `<section class="why-us"><h2>Why shop with us</h2>${para("warehouse", 2)}</section>`;

  it("does not grow past the page's only <main> over prose the theme sets beside it", () => {
    const html = `<html><head>${PRODUCT_LD}</head><body><div class="page"><main>${product}</main>${beside}</div></body></html>`;
    const t = text(html);
    for (const want of ["Studio Mic", "how the microphone works"]) expect(t).toContain(want);
    for (const gone of ["Why shop with us", "how the warehouse works"]) expect(t).not.toContain(gone);
  });

  it("still grows over such prose on a page without a <main>", () => {
    const html = `<html><head>${PRODUCT_LD}</head><body><div class="page"><div class="content">${product}</div>${beside}</div></body></html>`;
    const t = text(html);
    for (const want of ["Studio Mic", "how the microphone works", "how the warehouse works"]) expect(t).toContain(want);
  });
});
