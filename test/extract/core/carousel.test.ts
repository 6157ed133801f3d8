import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://shop.example.com/page") => extractMainText(html, url).text;
const ld = (...types: string[]) =>
  `<script type="application/ld+json">[${types.map((t, i) => `{"@type":"${t}","name":"Item ${i}"}`).join(",")}]</script>`;

describe("product carousels", () => {
  const card = (name: string, price: string) =>
    `<li class="tile"><a href="/p/${name.replace(/ /g, "-")}"><img src="/${name}.jpg"></a><h3>${name}</h3><div class="cost">${price}</div></li>`;
  const carousel = (title: string, names: string[]) =>
    `<div class="strip"><h2>${title}</h2><div class="viewport"><ul class="slides">${names.map((n, i) => card(n, `$${20 + i}.00`)).join("")}</ul></div></div>`;
  const product = (extra: string) => `<html><head>${ld("Product")}</head><body><main><div class="pdp">
      <h1>Trail Lamp</h1><div class="price">$49.00</div>${para("lamp", 3)}
      <table><tr><th>Weight</th><td>280 g</td></tr><tr><th>Price band</th><td>$40 to $60</td></tr><tr><th>Colour</th><td>Grey</td></tr></table>
      ${extra}</div></main></body></html>`;

  it("drops the cards of other products and their heading, keeps the product's price, text and specs", () => {
    const others = ["Desk Lamp", "Floor Lamp", "Wall Light", "Pendant Shade"];
    const t = text(product(carousel("Customers also viewed", others)), "https://shop.example.com/p/trail-lamp");
    for (const want of ["Trail Lamp", "$49.00", "how the lamp works", "280 g", "$40 to $60"]) expect(t).toContain(want);
    for (const gone of [...others, "Customers also viewed", "$21.00"]) expect(t).not.toContain(gone);
  });

  it("keeps strips titled as the shop's own picks (a category page that calls itself a product)", () => {
    const strip = ["Studio Lamp", "Reading Lamp", "Clip Light", "Night Light"];
    const t = text(product(carousel("New arrivals", strip)));
    for (const n of strip) expect(t).toContain(n);
  });

  it("keeps two offers side by side (no carousel of fewer than three cards)", () => {
    const t = text(product(carousel("Bundle offers", ["Lamp and Battery", "Lamp and Case"])));
    expect(t).toContain("Lamp and Battery");
  });

  it("keeps a grid larger than a carousel: a category page that calls itself a product", () => {
    const names = Array.from({ length: 20 }, (_, i) => `Lamp model ${i + 1}`);
    const html = `<html><head>${ld("Product")}</head><body><main><h1>Lamps</h1>
      <ul class="grid">${names.map((n, i) => card(n, `$${30 + i}.00`)).join("")}</ul></main></body></html>`;
    const t = text(html);
    for (const n of names) expect(t).toContain(n);
  });

  it("drops a small carousel on a category page, keeps the category's grid", () => {
    const names = ["Morning Blend", "Dark Roast", "Decaf Colombia", "Espresso Forte", "Ethiopia Natural", "Holiday Spice"];
    const recent = ["Travel Mug", "Grinder Mini", "Filter Papers"];
    const html = `<html><body><main><h1>Coffee</h1>
      <ul class="grid">${names.map((n, i) => card(n, `$1${i}.99`)).join("")}</ul>
      ${carousel("Recently viewed", recent)}</main></body></html>`;
    const t = text(html, "https://shop.example.com/collections/coffee");
    for (const n of names) expect(t).toContain(n);
    for (const n of recent) expect(t).not.toContain(n);
  });
});

describe("sections titled as other products", () => {
  // Cards as some shops render them: no link (scripts navigate), no price.
  const tile = (name: string) =>
    `<li class="tile"><div class="tile-name">${name}</div><div class="tile-note">New · Business seller</div></li>`;
  const section = (title: string, names: string[]) =>
    `<div class="rx-slot"><div class="rx-head"><h2>${title}</h2></div><div class="rx-body"><ul class="rx-list">${names.map(tile).join("")}</ul></div></div>`;
  const others = ["Chain kit 520 gold", "Sprocket set steel", "Chain guide black", "Chain slider red"];
  const product = (extra: string, head = ld("Product")) => `<html><head>${head}</head><body><main><div class="pdp">
      <h1>Chain 520 gold, 104 links</h1><div class="price">EUR 163.12</div>${para("chain", 3)}
      ${extra}</div></main></body></html>`;

  it("drops a product page's 'Similar items' and 'Explore related items' sections, cards without links or prices", () => {
    const t = text(
      product(
        section("Similar items", others) +
          section(
            "Explore related items",
            others.map((n) => `${n} II`),
          ),
      ),
    );
    for (const want of ["Chain 520 gold", "how the chain works"]) expect(t).toContain(want);
    for (const gone of [...others, "Similar items", "Explore related items", "Sprocket set steel II"])
      expect(t).not.toContain(gone);
  });

  it("drops 'Best selling in …' and 'Featured products' strips of other products", () => {
    const strips =
      section("Best Selling in Motorcycle Parts", others) +
      section(
        "Featured products",
        others.map((n) => `${n} II`),
      );
    const t = text(product(strips));
    expect(t).toContain("how the chain works");
    for (const gone of [...others, "Best Selling in", "Featured products"]) expect(t).not.toContain(gone);
  });

  it("drops a strip titled 'Your recently viewed items', keeps one whose title only mentions it later on", () => {
    const t = text(product(section("YOUR RECENTLY VIEWED ITEMS", others)));
    expect(t).toContain("how the chain works");
    for (const gone of [...others, "RECENTLY VIEWED"]) expect(t).not.toContain(gone);
    const features = ["Hardened pins", "Gold side plates", "X-ring seals", "Clip master link"];
    const kept = text(product(section("Why your recently viewed chains wore out", features)));
    for (const f of features) expect(kept).toContain(f);
  });

  it("keeps a product's own sections: one of prose, one whose title only mentions similarity later on", () => {
    const prose = `<div class="story"><h2>Similar feel, new sole</h2>${para("sole", 3)}</div>`;
    expect(text(product(prose))).toContain("how the sole works");
    const features = ["Hardened pins", "Gold side plates", "X-ring seals", "Clip master link"];
    const t = text(product(section("Why it wears like the similar racing chains", features)));
    for (const f of features) expect(t).toContain(f);
  });
});

describe("sections a product page titles as add-ons to buy with it", () => {
  const tile = (name: string, i: number) =>
    `<li class="tile"><div class="tile-name">${name}</div><div class="tile-price">$${10 + i}.00</div></li>`;
  const section = (title: string, names: string[]) =>
    `<div class="upsell"><h2>${title}</h2><ul class="upsell-list">${names.map(tile).join("")}</ul></div>`;
  const others = ["Straw lid", "Cocktail shaker lid", "Magnetic slider pack", "Handle"];
  const product = (extra: string) => `<html><head>${ld("Product")}</head><body><main><div class="pdp">
      <h1>Tumbler 20 oz</h1><div class="price">$35.00</div>${para("tumbler", 3)}
      ${extra}</div></main></body></html>`;

  it("drops 'Complete your order', 'Add the essentials', 'Buy a bundle and save' and 'Accessories' strips", () => {
    for (const title of ["Complete Your Order", "Add the essentials", "Buy a bundle and save!", "Recommended accessories"]) {
      const t = text(product(section(title, others)));
      expect(t).toContain("how the tumbler works");
      for (const gone of [title, ...others]) expect(t).not.toContain(gone);
    }
  });

  it("drops the same product's offers from other sellers ('All listings for this product', 'Other sellers')", () => {
    for (const title of ["All listings for this product", "Other sellers on the marketplace", "More Buying Options"]) {
      const t = text(product(section(title, others)));
      expect(t).toContain("how the tumbler works");
      for (const gone of [title, ...others]) expect(t).not.toContain(gone);
    }
  });

  it("keeps a list of what comes in the box ('Accessories included') and a prose section about accessories", () => {
    const t = text(product(section("Accessories included", others)));
    for (const n of others) expect(t).toContain(n);
    const prose = `<div class="story"><h2>Accessories that fit</h2>${para("lid", 3)}</div>`;
    expect(text(product(prose))).toContain("how the lid works");
  });
});

describe("strips of other products titled by a block styled as a heading", () => {
  const tile = (name: string, i: number) =>
    `<div class="xs-item"><a href="/p/${i}"><img src="/${i}.jpg"></a><span class="xs-name">${name}</span><span class="xs-price">$${12 + i}.95</span></div>`;
  const strip = (title: string, names: string[], tag = "p") =>
    `<div class="xs-wrap"><div class="xs"><${tag} class="xs-title">${title}</${tag}><div class="xs-list">${names.map(tile).join("")}</div></div></div>`;
  const others = ["Anti-static wrist strap", "Precision tweezers set", "Spudger pack"];
  const product = (extra: string) => `<html><head>${ld("Product")}</head><body><main><div class="pdp">
      <h1>Pro Tech Toolkit</h1><div class="price">$74.95</div>${extra}${para("toolkit", 3)}
      </div></main></body></html>`;

  it("drops 'Frequently Bought Together' and 'Add the essentials' strips titled by a <p> or <div>, with their cards", () => {
    const titles: [string, string][] = [
      ["Frequently Bought Together", "p"],
      ["Add the essentials", "div"],
      ["Complete Your Order", "span"],
    ];
    for (const [title, tag] of titles) {
      const t = text(product(strip(title, others, tag)));
      for (const want of ["Pro Tech Toolkit", "$74.95", "how the toolkit works"]) expect(t).toContain(want);
      for (const gone of [title, ...others, "$13.95"]) expect(t).not.toContain(gone);
    }
  });

  it("keeps a sentence that starts like such a title and a spec row labelled 'Accessories'", () => {
    const offer = `<div class="offer"><p class="offer-line">Save on a new toolkit when you trade in an old one.</p><p><a href="/trade-in">Trade-in terms</a></p></div>`;
    const t = text(product(offer));
    expect(t).toContain("Save on a new toolkit when you trade in an old one.");
    const spec = `<div class="spec"><div class="spec-row"><span class="spec-key">Accessories</span> <span class="spec-value">Carrying pouch and magnetic mat</span></div></div>`;
    expect(text(product(spec))).toContain("Carrying pouch and magnetic mat");
  });
});

describe("a marketplace listing's seller card", () => {
  const card = (title: string) => `<div class="store-info"><h2>${title}</h2>
      <div class="store-header"><div class="avatar">P</div><h3 class="store-name">Profile Coins and Collectibles</h3></div>
      <div class="store-stats"><span>99.8% positive feedback</span> <span>296K items sold</span> <span>Joined Mar 2009</span></div>
      <div class="store-cta"><button type="button">Seller's other items</button><button type="button">Contact seller</button></div></div>`;
  const product = (extra: string) => `<html><head>${ld("Product")}</head><body><main><div class="listing">
      <h1>Silver proof set 2024</h1><div class="price">US $394.99</div>${para("proof set", 3)}
      ${extra}</div></main></body></html>`;

  it("drops the seller's card titled 'About this seller', 'Meet your sellers' or 'Seller feedback'", () => {
    for (const title of ["About this seller", "Meet your sellers", "Seller Feedback"]) {
      const t = text(product(card(title)), "https://market.example.com/itm/365999454668");
      for (const want of ["Silver proof set 2024", "US $394.99", "how the proof set works"]) expect(t).toContain(want);
      for (const gone of [title, "Profile Coins and Collectibles", "99.8% positive feedback"]) expect(t).not.toContain(gone);
    }
  });

  it("keeps a section of prose that starts like such a title and a seller's own text about the item", () => {
    const story = `<div class="maker"><h2>About the seller's workshop</h2>${para("kiln", 3)}</div>`;
    expect(text(product(story))).toContain("how the kiln works");
    const note = `<div class="from-seller"><h2>Item description from the seller</h2>${para("coin", 2)}</div>`;
    expect(text(product(note))).toContain("how the coin works");
  });
});
