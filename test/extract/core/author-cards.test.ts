import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (author: string, tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"><meta name="author" content="${author}"></head><body><main><article><h1>How to repot a fiddle-leaf fig</h1><div class="body">${para("soil", 4)}${para("roots", 4)}${para("watering", 4)}</div>${tail}</article></main></body></html>`,
    "https://example.com/repot-a-fiddle-leaf-fig",
  ).text;

/** An author card of plain utility classes: photo, name, role, bio (a div, not a paragraph), a link. */
const card = (bio: string) =>
  `<div class="mt-8 p-4 border"><div class="flex"><img src="/a/jane.jpg" alt="photo of Jane Marlow"><div class="w-4/5"><p><span class="font-semibold">Jane Marlow</span>, Senior Editor, Home &amp; Garden</p><div class="text-sm">${bio}</div><a href="/authors/jane-marlow">View all posts by Jane Marlow</a></div></div></div>`;

describe("an author card under the story", () => {
  it("drops the whole card when its bio opens with the page's author's name", () => {
    const t = page(
      "Jane Marlow",
      card("Jane Marlow is the senior editor of Home &amp; Garden. She also writes about houseplants for the weekly letter."),
    );
    expect(t).toContain("how the watering works");
    expect(t).not.toContain("is the senior editor of Home");
    expect(t).not.toContain("View all posts by Jane Marlow");
    expect(t).not.toContain("Senior Editor, Home");
  });

  it("drops a card whose bio opens with the author's first name, the card printing the full name", () => {
    const t = page("Jane Marlow", card("Jane is a content writer who blogs about houseplants, balconies and small gardens."));
    expect(t).not.toContain("Jane is a content writer");
    expect(t).not.toContain("View all posts by Jane Marlow");
  });

  it("drops a bio after an 'About the author' label", () => {
    const t = page(
      "Jane Marlow",
      "<p>About the author: Jane Marlow has grown figs on her balcony for ten years and teaches a class on repotting.</p>",
    );
    expect(t).not.toContain("grown figs on her balcony");
  });

  it("keeps a paragraph of the story that opens with the author's first name (no card, no full name)", () => {
    const t = page(
      "Jane Marlow",
      "<p>Jane is a nurse in the town hospital, and she repotted her fig with the method above after the roots had circled the pot twice.</p>",
    );
    expect(t).toContain("Jane is a nurse in the town hospital");
  });

  it("keeps the card of someone else than the page's author", () => {
    // The story goes on after it: a card closing the story goes whoever it names (named-bios test).
    const t = page(
      "Tom Reyes",
      `${card("Jane Marlow is the senior editor of Home &amp; Garden. She also writes about houseplants.")}${para("repotting", 3)}`,
    );
    expect(t).toContain("Jane Marlow is the senior editor");
  });
});
