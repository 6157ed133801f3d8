import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const tents = ["Ridgeline 2 Tent", "Basecamp 4 Tent", "Trailhead Solo Shelter", "Meadow 6 Family Tent"];
const cards = tents
  .map((t, i) => `<li class="tile"><a href="/p/${i}"><h3>${t}</h3></a><span class="price">$${i + 2}49.00</span></li>`)
  .join("");

describe("status messages a script fills for screen readers", () => {
  it("'Loaded 24 results', 'Added to list' and an error alert go", () => {
    const html = `<html><body><main><h1>Camping tents</h1>
      <div role="status">Loaded 24 results</div>
      <ul class="results">${cards}</ul>
      <span aria-live="polite">Added to list</span>
      <div role="alert">Unable to add item to list. Please try again.</div></main></body></html>`;
    const t = text(html, "https://outdoor.example.com/c/camping-tents");
    for (const x of tents) expect(t).toContain(x);
    expect(t).not.toContain("Loaded 24 results");
    expect(t).not.toContain("Added to list");
    expect(t).not.toContain("Unable to add item");
  });

  it("keeps a price and a picked option updated in place, a results list in a live region and aria-live=off", () => {
    const html = `<html><body><main><h1>Ridgeline 2 Tent</h1>
      <p>A two-person, three-season tent with two doors and two vestibules, pitched in minutes with one hubbed pole set.</p>
      <div role="status"><span class="price">$169.99</span></div>
      <div aria-live="polite">Color: Sandstone</div>
      <div aria-live="off">Ships in 2 to 3 business days</div>
      <div aria-live="polite"><ul class="results">${cards}</ul></div></main></body></html>`;
    const t = text(html, "https://outdoor.example.com/p/ridgeline-2-tent");
    expect(t).toContain("$169.99");
    expect(t).toContain("Color: Sandstone");
    expect(t).toContain("Ships in 2 to 3 business days");
    for (const x of tents) expect(t).toContain(x);
  });
});
