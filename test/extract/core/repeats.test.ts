import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://www.example.com/page") => extractMainText(html, url).text;
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe("blocks shown twice", () => {
  const blurb = "Hand thrown stoneware with a matte speckled glaze, made in small batches.";
  const band = (variant: string) =>
    `<div class="feature-band ${variant}"><h2>Built for mornings</h2><p>${blurb}</p><ul><li>Dishwasher safe, every day of the year</li><li>Holds a generous 350 ml of coffee or tea</li></ul></div>`;

  it("keeps one copy of a section a responsive layout ships twice (wide and narrow)", () => {
    const html = `<html><body><main><h1>Speckle mug</h1>${para("glaze", 3)}
      <div class="desktop-only">${band("wide")}</div><div class="mobile-only">${band("narrow")}</div>${para("kiln", 2)}</main></body></html>`;
    const t = text(html);
    expect(count(t, blurb)).toBe(1);
    expect(count(t, "Dishwasher safe, every day of the year")).toBe(1);
    expect(t).toContain("how the kiln works");
  });

  it("keeps the fine print every coupon of a list carries", () => {
    const note = "Must be presented before start of work. Not valid with other offers.";
    const coupon = (title: string) => `<div class="coupon"><h3>${title}</h3><p>${note}</p></div>`;
    const offers = ["10% off a panel upgrade", "$25 off any troubleshooting", "$50 off a surge protector", "$50 off any repair"];
    const html = `<html><body><main><h1>Coupons</h1>${para("offer", 2)}${offers.map(coupon).join("")}</main></body></html>`;
    const t = text(html, "https://www.example.com/coupons/");
    expect(count(t, note)).toBe(offers.length);
  });

  it("keeps lines a flat text repeats (the same step under each plan) and repeated code", () => {
    const step = "Drink 20 to 30 minutes before your workout, then rest.";
    const code = "npm install --save-dev example-tool";
    const html = `<html><head><meta property="og:type" content="article"></head><body><article><h1>Meal plans</h1>
      ${para("plan", 3)}<h2>Plan A</h2><p>${step}</p><pre><code>${code}</code></pre>${para("protein", 2)}
      <h2>Plan B</h2><p>${step}</p><pre><code>${code}</code></pre>${para("carbs", 2)}</article></body></html>`;
    const t = text(html);
    expect(count(t, step)).toBe(2);
    expect(count(t, code)).toBe(2);
  });
});
