import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const url = "https://www.example.com/blog/how-to-quote-plumbing-jobs";
const story = (inner: string) =>
  `<html><head><meta property="og:type" content="article"><meta property="article:published_time" content="2025-03-01T10:00:00Z"></head><body><main><article><h1>How to quote plumbing jobs</h1>${para("quote", 4)}${inner}${para("invoice", 4)}</article></main></body></html>`;

describe("call-to-action boxes in a story", () => {
  it("drops the publisher's pitch set between the paragraphs", () => {
    const pitch = `<div class="post-cta"><h3 class="post-cta__heading">Want to win more jobs with less effort?</h3><p>Grow your business and send quick quotes with our home service software.</p><a href="/demo">Book a demo</a></div>`;
    const t = extractMainText(story(pitch), url).text;
    expect(t).toContain("how the invoice works");
    expect(t).not.toContain("Want to win more jobs");
    expect(t).not.toContain("send quick quotes");
  });

  it("keeps cards built with a call-to-action widget, and a long section so named", () => {
    const cards = ["Drain cleaning", "Water heaters", "Leak detection"]
      .map(
        (s) =>
          `<div class="elementor-column"><div class="elementor-cta"><div class="elementor-cta__content"><h3 class="elementor-cta__title">${s}</h3><div class="elementor-cta__description">${s} for homes and small businesses, priced before we start.</div><a class="elementor-cta__button" href="/${s.toLowerCase().replace(/ /g, "-")}">Details</a></div></div></div>`,
      )
      .join("");
    const t = extractMainText(story(`<div class="services">${cards}</div>`), url).text;
    expect(t).toContain("Water heaters for homes and small businesses");
    const long = `<section class="cta-column">${para("estimate", 3)}${para("warranty", 3)}${para("permit", 3)}<a href="/contact">Contact us</a></section>`;
    expect(extractMainText(story(long), url).text).toContain("how the warranty works");
  });
});
