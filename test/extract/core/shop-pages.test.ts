import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://shop.example.com/page") => extractMainText(html, url).text;
const productLd = `<script type="application/ld+json">{"@type":"Product","name":"Trail Lamp"}</script>`;

describe("product pages", () => {
  it("keeps description sections that sit below the buy box, drops the purchase form", () => {
    const options = ["S", "M", "L", "XL", "XXL"]
      .map((s) => `<label><input type="radio" name="size" value="${s}">${s}</label>`)
      .join("");
    const html = `<html><head>${productLd}</head><body><main>
      <div class="pdp"><div class="buy-box"><h1>Trail Lamp</h1><div class="price">$49.00</div>
        <form action="/cart/add"><fieldset>${options}</fieldset><span>Quantity</span><button>Add to cart</button></form>
        <p>A small note on the lamp, with a comma, and some words to read here.</p></div></div>
      <section class="details"><h2>Details</h2>${para("lamp body", 3)}</section>
      <section class="materials"><h2>Materials</h2>${para("aluminium shell", 3)}</section>
    </main></body></html>`;
    const t = text(html, "https://shop.example.com/products/trail-lamp");
    for (const want of ["Trail Lamp", "$49.00", "how the lamp body works", "how the aluminium shell works"])
      expect(t).toContain(want);
    expect(t).not.toContain("Quantity");
  });

  it("reads og:type product.group as a product", () => {
    const html = `<html><head><meta property="og:type" content="product.group"></head><body><main>
      <div><h1>Beard Oil</h1><form><input type="radio" name="a"><label>Cedar</label><input type="radio" name="a"><label>Pine</label></form></div>
      ${para("oil", 3)}</main></body></html>`;
    expect(text(html)).not.toContain("Cedar");
  });

  it("keeps the panel of a collapsed accordion whose wrapper is hidden", () => {
    const html = `<html><head>${productLd}</head><body><main><h1>Trail Lamp</h1>${para("lamp", 6)}
      <button aria-expanded="false" aria-controls="panel-1">Description</button>
      <div class="collapse" style="display:none;height:0"><div role="region" id="panel-1">${para("hidden description", 1)}</div></div>
      <div style="display:none">Tracking pixel text</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the hidden description works");
    expect(t).not.toContain("Tracking pixel text");
  });

  it("drops review widgets even when the reviews read like prose", () => {
    const review = `<div class="jdgm-rev"><p>${"I really like this lamp, it is bright, light and well made. ".repeat(6)}</p></div>`;
    const html = `<html><head>${productLd}</head><body><main><h1>Trail Lamp</h1>${para("lamp", 3)}
      <div class="jdgm-rev-widg__reviews">${review.repeat(4)}</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the lamp works");
    expect(t).not.toContain("I really like this lamp");
  });
});

describe("streamed server rendering", () => {
  it("moves hidden streamed segments into their placeholders", () => {
    const html = `<html><body><main><h1>Guide</h1><template id="B:0"></template></main>
      <footer><p>Copyright Example</p></footer>
      <div hidden id="S:0"><section>${para("streamed part", 3)}</section></div></body></html>`;
    const t = text(html, "https://example.com/guide");
    expect(t).toContain("how the streamed part works");
    expect(t).not.toContain("Copyright");
  });
});

describe("collection pages", () => {
  const card = (name: string, price: string, extra = "") =>
    `<li class="grid__item item-${name.length}"><div class="card"><a href="/p/${name}"><img src="/${name}.jpg"></a>
      <h3><a href="/p/${name}">${name}</a></h3><div class="badges"><a href="/c/new">New</a><a href="/c/sale">Sale</a><a href="/c/eco">Eco</a></div>
      <span class="price">${price}</span>${extra}</div></li>`;
  const quick = `<div class="quick-shop-wrapper"><label>Size</label><span>Choose size</span></div>`;
  const names = ["Morning Blend", "Dark Roast Supreme", "Decaf Colombia", "Espresso Forte", "Ethiopia Natural"];
  const page = (head = "") => `<html><head>${head}</head><body>
    <div class="side-menu"><ul><li><span>Wallets</span></li><li><span>Bags</span></li><li><span>Back</span></li></ul></div>
    <main><h1>Coffee</h1><div class="facets"><h2>Filter</h2><ul><li>Light</li><li>Medium</li><li>Dark</li></ul></div>
    <ul class="grid">${names.map((n, i) => card(n, `$1${i}.99`, quick)).join("")}</ul>
    <div>Loading...</div><div><a href="?page=2">Load more</a></div></main></body></html>`;

  it("keeps every card whole, even cards with several links; drops filters, side menus and widget labels", () => {
    const t = text(page(), "https://shop.example.com/collections/coffee");
    for (const n of names) expect(t).toContain(n);
    expect(t).toContain("$14.99");
    for (const junk of ["Light", "Wallets", "Back", "Loading", "Load more", "Choose size"]) expect(t).not.toContain(junk);
  });

  it("keeps grid cards on shop pages that also call themselves articles", () => {
    const t = text(page('<meta property="og:type" content="article">'), "https://shop.example.com/shop/");
    for (const n of names) expect(t).toContain(n);
  });

  it("does not take classes such as content-shared-styles for share bars", () => {
    const html = `<html><body><main>${para("story", 4)}<div class="content-shared-styles">${para("shared style", 1)}</div>${para("ending", 4)}</main></body></html>`;
    expect(text(html)).toContain("how the shared style works");
  });

  it("reads responsive utility classes as a desktop does", () => {
    const html = `<html><body><main>${para("story", 4)}
      <div class="hidden md:block">${para("desktop copy", 1)}</div>
      <div class="md:hidden">Mobile copy of the menu</div>
      <div class="hidden">Never shown text</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the desktop copy works");
    expect(t).not.toContain("Mobile copy");
    expect(t).not.toContain("Never shown");
  });

  it("keeps headings classed as headers and card titles flagged with reviews", () => {
    const names = ["Geo Tee", "Crest Tee", "Power Tank", "Arrival Top", "Legacy Tee"];
    const cards = names
      .map(
        (n) =>
          `<li class="card"><div class="card_title-container card_title-container--with-reviews"><span>${n}</span></div><a href="/p/${n}">View</a><span>$20, free returns</span></li>`,
      )
      .join("");
    const html = `<html><body><main><h2 class="content-header">Our tees</h2><ul class="grid">${cards}</ul></main></body></html>`;
    const t = text(html, "https://shop.example.com/collections/tees");
    expect(t).toContain("Our tees");
    for (const n of names) expect(t).toContain(n);
  });

  it("keeps a card's BEM header element (card__header), still drops the page header", () => {
    const names = ["Vintage Poster", "Old Coin", "Tin Toy Car", "Comic Book", "Postcard Set"];
    const cards = names
      .map(
        (n) => `<li class="item-card"><div class="item-card__header"><span>${n}</span></div><span>$9, ships tomorrow</span></li>`,
      )
      .join("");
    const html = `<html><body><div class="page-header"><span>Sign in</span></div><main><ul class="results">${cards}</ul></main></body></html>`;
    const t = text(html, "https://shop.example.com/b/collectibles");
    for (const n of names) expect(t).toContain(n);
    expect(t).not.toContain("Sign in");
  });

  it("keeps the parts of a card's BEM header element (listing__header__title), still drops the page header", () => {
    const jobs = ["Software Engineer", "Senior Data Analyst", "Product Designer", "Support Lead", "QA Engineer"];
    const cards = jobs
      .map(
        (n) =>
          `<li class="new-listing"><a href="/jobs/${n.length}"><span class="new-listing__header__title__text">${n}</span><span>Acme Corp, Remote, Full-Time</span></a></li>`,
      )
      .join("");
    const html = `<html><body><div class="page-header"><span>Sign in</span></div><main><ul class="jobs">${cards}</ul></main></body></html>`;
    const t = text(html, "https://jobs.example.com/categories/engineering");
    for (const n of jobs) expect(t).toContain(n);
    expect(t).not.toContain("Sign in");
  });
});
