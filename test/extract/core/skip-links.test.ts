import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const story = `<p>The trail runs along the bayou for four miles, with shade most of the way, a few roots to hop, and water at both ends of it.</p>
  <p>Riders who want more can link it with the loop in the park, which adds two miles of tighter turns and a short climb.</p>`;

/** A page without <main> or <article>: the block that holds the story holds its skip link too. */
const page = (inside: string) =>
  `<html><body><div class="site"><div class="entry">${inside}<h1>Riding the bayou</h1>${story}${story}</div></div></body></html>`;

describe("skip links", () => {
  it("a skip link to a place on the page goes", () => {
    for (const link of ["Skip to content", "Skip to main content", "Skip navigation links", "Jump to main content"]) {
      const t = text(page(`<a href="#content" class="shortcut">${link}</a>`), "https://trails.example.com/houston");
      expect(t).toContain("Riding the bayou");
      expect(t).not.toContain(link);
    }
  });

  it("keeps links to other pages and prose that say 'skip to'", () => {
    const more = `<p>New riders can <a href="/guides/first-ride">skip to the beginner's guide</a> before their first ride.</p>
      <p><a href="/guides/advanced">Skip to advanced trails</a></p><p><a href="#maps">Skip the maps</a></p>`;
    const t = text(page(more), "https://trails.example.com/houston");
    expect(t).toContain("skip to the beginner's guide");
    expect(t).toContain("Skip to advanced trails");
    expect(t).toContain("Skip the maps");
  });

  it("a link shown only on keyboard focus (sr-only-focusable, visually-hidden-focusable) goes", () => {
    const more = `<a href="javascript:void(0);" class="carousel__controls sr-only-focusable">Customer stories slides controls</a>
      <a href="#slides" class="visually-hidden-focusable">Resources tab controls</a>`;
    const t = text(page(more), "https://trails.example.com/houston");
    expect(t).toContain("Riding the bayou");
    expect(t).not.toContain("slides controls");
    expect(t).not.toContain("Resources tab controls");
  });

  it("keeps a link whose class only mentions focus", () => {
    const more = `<p><a href="/guides/maps" class="link focusable">Trail maps for every park in the county</a></p>`;
    const t = text(page(more), "https://trails.example.com/houston");
    expect(t).toContain("Trail maps for every park in the county");
  });
});
