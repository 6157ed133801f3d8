import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/2024/05/how-rivers-carve-canyons") => extractMainText(html, url).text;

const bio = (cls: string) =>
  `<div class="${cls}"><h3>About Jane Doe</h3><p>Jane Doe is a geologist and science writer who has spent twenty years walking canyons, measuring sediment and explaining what she finds to readers of newspapers, magazines and this site. Her latest book, about rivers and time, came out last spring and has been translated into six languages.</p><p>She lives in Flagstaff with two dogs and too many rock samples, and answers every letter she gets.</p></div>`;
const article = (box: string) =>
  `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>How rivers carve canyons</h1>${para("canyon", 4)}${para("erosion", 4)}${box}</article></main></body></html>`;

describe("author boxes", () => {
  it("drops the author's bio box under an article, prose though it is", () => {
    for (const cls of ["author-bio", "post-author-box", "about-the-author", "authorbox", "bio-box"]) {
      const t = text(article(bio(cls)));
      expect(t).toContain("how the erosion works");
      expect(t, cls).not.toContain("science writer");
    }
  });

  it("keeps a bio block that is the page (an author's profile)", () => {
    const html = `<html><body><main><h1>Jane Doe</h1>${bio("author-bio")}<a href="/jane/posts">All posts by Jane</a></main></body></html>`;
    expect(text(html, "https://example.com/authors/jane-doe")).toContain("science writer");
  });

  it("keeps a block whose class only mentions an author elsewhere ('authoring-tools')", () => {
    const html = article(`<div class="authoring-tools">${para("tooling", 3)}</div>`);
    expect(text(html)).toContain("how the tooling works");
  });
});

describe("author boxes named with underscores", () => {
  it("drops a bio box whose class joins its words with an underscore", () => {
    for (const cls of ["author_about", "about_the_author", "author_bio", "bio_box"]) {
      const t = text(article(bio(cls)));
      expect(t).toContain("how the erosion works");
      expect(t, cls).not.toContain("science writer");
    }
  });

  it("keeps a section about the subject whose class says about", () => {
    const t = text(article(bio("about_section")));
    expect(t).toContain("science writer");
  });
});
