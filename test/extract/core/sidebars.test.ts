import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string) => extractMainText(html, "https://gear.example.com/rentals/tent-for-four/").text;

const para = (s: string) => `<p>${s}</p>`;
const description = [
  "This four-person tent pitches in minutes with colour-coded poles and clips, and its full rain fly keeps a family dry through a night of steady rain.",
  "Two doors and two vestibules mean nobody climbs over anybody at night, and there is room for boots and packs out of the weather on both sides.",
  "Mesh panels in the roof and walls move air on warm nights, while the fly can be rolled back for a view of the stars when the sky is clear.",
  "The floor is a tub of heavy coated nylon that climbs the walls a hand's width, so water running across a campsite stays outside the tent.",
  "Inside, pockets at each corner hold torches and phones, and a loop in the roof takes a lantern; the inner tent packs with the fly attached.",
  "Every rental comes cleaned, seam-sealed and checked, with a footprint, spare stakes and a repair kit, and the packed bag weighs six kilograms.",
  "Pick it up at the shop or have it shipped to your door two days before the trip; returns go back in the same box with the label included.",
  "Rentals run from three nights to four weeks, and a damage waiver covers torn mesh, bent poles and lost stakes for a small fee per day.",
  "Guy lines are reflective and pre-tied to the fly, and the stakes are aluminium Y-section ones that hold in sand, gravel and frozen ground.",
  "The tent stands about two metres tall at the peak, so adults can stand to change, and the walls are steep enough to fit two cots side by side.",
].map(para);
const reviews = [
  [
    "Tyler",
    "An amazing place to rent gear! They have just about everything you could need for a trip at great prices, and pickup was quick.",
  ],
  [
    "Eric",
    "We rented the family camping set in October and it worked out very well. The gear arrived two days early and everything worked as planned.",
  ],
  [
    "Allison",
    "I searched through reviews of tents on the internet and decided on this one, then found this shop, which had the tent at a good price.",
  ],
  [
    "Diwas",
    "Great product and excellent service! We rented some hiking poles, and the reservation process was smooth from start to finish for us.",
  ],
  [
    "Maria",
    "Everything was clean and packed neatly, with instructions for each item. Returning it by mail was easy with the label they included.",
  ],
  [
    "Kenji",
    "Second time renting here and both trips went without a hitch. The staff answered every question by phone before we left for the park.",
  ],
  [
    "Sofia",
    "The sleeping pads were warmer than I expected for the price, and the tent went up in ten minutes even though it was our first try.",
  ],
  [
    "Owen",
    "Booked on a Tuesday for a Friday trip and the whole kit was waiting at the counter, checked and complete, with a printed packing list.",
  ],
]
  .map(([who, said]) => `<div class="card"><div class="name">${who}</div><p>${said}</p></div>`)
  .join("");

const page = (side: string) =>
  `<html><body><div class="entry"><h1>Tent for four, rental</h1>${description.join("")}${side}</div></body></html>`;

describe("a column named sidebar", () => {
  it("drops an element named 'sidebar' however much prose it holds (a review widget beside the page)", () => {
    for (const side of [`<div id="sidebar">${reviews}</div>`, `<div class="sidebar">${reviews}</div>`]) {
      const t = text(page(side));
      expect(t).toContain("colour-coded poles");
      expect(t).not.toContain("An amazing place to rent gear");
    }
  });

  it("keeps a wrapper whose class only mentions a sidebar ('has-sidebar'), and a 'sidebar' holding the page's h1", () => {
    const wrapped = `<html><body><div class="has-sidebar"><h1>Tent for four, rental</h1>${description.join("")}${reviews}</div></body></html>`;
    expect(text(wrapped)).toContain("colour-coded poles");
    expect(text(wrapped)).toContain("An amazing place to rent gear");
    const misnamed = `<html><body><div class="sidebar"><h1>Tent for four, rental</h1>${description.join("")}${reviews}</div><div class="side"><p>Open daily.</p></div></body></html>`;
    expect(text(misnamed)).toContain("colour-coded poles");
    expect(text(misnamed)).toContain("An amazing place to rent gear");
  });
});
