import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL_ = "https://blog.example.com/2024/05/river-walks";
const HEAD = `<title>River walks</title><meta property="og:type" content="article">`;
const text = (body: string) => extractMainText(`<html><head>${HEAD}</head><body>${body}</body></html>`, URL_).text;

const BIO =
  "Regan is a Connecticut native now living in Massachusetts with her husband, two sons and two cats. After six years in Colorado she and her family realised that New England is home; she loves day trips, reading and coffee.";
const article = (box: string) =>
  `<main><article><h1>River walks</h1><div class="entry">${para("river", 4)}${para("trail", 4)}${para("bridge", 3)}</div>${box}</article></main>`;

describe("an author's biography under or beside the post", () => {
  it("drops a bio box however its theme or plugin names it, prose though it is", () => {
    const boxes = [
      // The Simple Author Box plugin.
      `<div class="saboxplugin-wrap"><div class="saboxplugin-tab"><div class="saboxplugin-desc"><div itemprop="description"><p>${BIO}</p></div></div></div></div>`,
      // A theme's author block under the post.
      `<div class="post-author"><div class="author-content"><p>${BIO}</p></div></div>`,
      // BEM elements of an author or contributor card.
      `<div class="mntl-author-tooltip"><div class="mntl-author-tooltip__bio"><p>${BIO}</p></div></div>`,
      `<div class="author__bio"><p>${BIO}</p></div>`,
      `<div class="contrib-full-bio"><p>${BIO}</p></div>`,
      `<section class="contributor-bio contributor-bio--align-left"><p>${BIO}</p></section>`,
    ];
    for (const box of boxes) {
      const t = text(article(box));
      expect(t).toContain("how the bridge works");
      expect(t, box.slice(0, 40)).not.toContain("Connecticut native");
    }
  });

  it("keeps a biography that is not an author's (a shop's story, a profile page's biography)", () => {
    const store = `<div class="store-information__bio"><p>${BIO}</p></div>`;
    expect(text(article(store))).toContain("Connecticut native");
    const profile = `<main><h1>Regan Smith</h1><div class="biography">${para("career", 4)}<p>${BIO}</p></div></main>`;
    expect(extractMainText(`<html><body>${profile}</body></html>`, "https://example.com/people/regan").text).toContain(
      "Connecticut native",
    );
  });
});
