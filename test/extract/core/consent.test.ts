import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

describe("consent managers' panels", () => {
  const purposes = [
    "Performance cookies",
    "Targeting cookies",
    "Functional cookies",
    "Strictly necessary cookies",
    "Measure ads",
  ];
  const centre = (cls: string, inner = "") => `<div id="${cls}"><div class="pc-panel"><h2>Your privacy</h2>
    ${purposes.map((p) => `<div class="pc-group"><h3>${p}</h3>${para(`${p.toLowerCase()} purpose`, 4)}</div>`).join("")}${inner}</div></div>`;
  const page = (panel: string) => `<html><head><title>Dinner recipes</title></head><body>${panel}
    <div class="page"><h1>Dinner recipes</h1>${para("dinner planner", 1)}
    <ul class="recipes">${["Beef tacos", "Sheet pan chicken", "Pasta bake", "Lentil soup", "Fish pie"].map((r, i) => `<li><a href="/r/${i}">${r} for busy weeknights</a> <span>${20 + i} minutes</span></li>`).join("")}</ul></div></body></html>`;

  it("drops a preference centre that outweighs the page", () => {
    const t = text(page(centre("onetrust-consent-sdk")), "https://example.com/recipes/dinner/");
    expect(t).toContain("how the dinner planner works");
    expect(t).not.toContain("targeting cookies purpose");
  });

  it("keeps a wrapper named for consent that holds the page's heading", () => {
    const html = `<html><head><title>Policy</title></head><body><div class="cookie-consent-page"><h1>Cookie policy</h1>
      ${para("cookie policy", 6)}${para("data retention", 6)}</div></body></html>`;
    expect(text(html, "https://example.com/cookie-policy")).toContain("how the data retention works");
  });
});
