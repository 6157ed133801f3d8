import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const posts = Array.from(
  { length: 6 },
  (_, i) =>
    `<div class="entry"><h2><a href="/blog/post-${i}">Walking the coast path, day ${i + 1}</a></h2>
      <p>Day ${i + 1} of the walk took us along the cliffs, past two coves and a lighthouse, to a village with one shop.</p></div>`,
).join("");

/** A category of a blog: its posts in <main>, and a box of the site's own beside <main>. */
const page = (beside: string) =>
  `<html><head><title>Coast walks</title></head><body><div class="wrap">
    <main class="site-main"><div class="posts">${posts}</div></main>
    ${beside}</div></body></html>`;

describe("the page's one <main> inside the best subtree", () => {
  it("is the root when it holds most of the subtree, leaving the site's box beside it", () => {
    const box = `<div class="about-box"><h3>About this blog</h3><p>We are two walkers from Leeds, writing about the paths we walk, the pubs we find and the weather.</p></div>`;
    const t = extractMainText(page(box), "https://example.com/category/walks").text;
    expect(t).toContain("Walking the coast path, day 6");
    expect(t).not.toContain("two walkers from Leeds");
  });

  it("is passed over when the text beside it weighs as much as it does", () => {
    const more = `<div class="more-walks">${posts.replace(/coast path/g, "moor path").replace(/post-/g, "moor-")}</div>`;
    const t = extractMainText(page(more), "https://example.com/category/walks").text;
    expect(t).toContain("Walking the coast path, day 6");
    expect(t).toContain("Walking the moor path, day 6");
  });
});
