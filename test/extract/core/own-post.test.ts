import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string) => extractMainText(html, "https://example.com/who-loves-themselves").text;

/** A blog theme's other post: an image, share buttons and a full excerpt, as an <article>. */
const other = (topic: string, i: number) =>
  `<article class="postbox post-${i}"><center><img src="/img/${i}.jpg" alt=""></center><div><center><a class="btn" href="https://wa.me/?text=${i}">Whatsapp</a> <a class="btn" href="https://facebook.com/share?${i}">Facebook</a></center></div>${para(topic, 5)}</article>`;
const page = (posts: string) => `<!doctype html><html><head><meta property="og:type" content="article"></head><body>
<header class="site-header"><a href="/">Home</a></header>
<div id="container"><div id="primary">
<article class="articlebox" itemprop="blogPost"><h1>Only who loves themselves</h1><p class="crumbs"><a href="/">Messages</a> » <a href="/self">Self-esteem</a></p>
<center><img src="/img/main.jpg" alt=""></center>${para("self love", 3)}</article>
${posts}
</div></div><footer><p>Copyright 2024 Example Messages.</p></footer></body></html>`;

describe("a post beside a block of other posts that outweighs it", () => {
  it("keeps the post that holds the page's headline and drops the block of other posts", () => {
    const t = text(
      page(
        `<article class="postbox"><h3 class="relatedpoststitle">You may like...</h3>${other("optimism", 1)}${other("faith", 2)}${other("family", 3)}</article>`,
      ),
    );
    expect(t).toContain("how the self love works");
    expect(t).not.toContain("how the optimism works");
    expect(t).not.toContain("how the family works");
  });

  it("keeps every entry of a listing whose title sits outside the entries", () => {
    const listing = `<!doctype html><html><head><meta property="og:type" content="article"></head><body><div id="primary"><h1>Messages of self-esteem</h1>
    <div class="posts">${other("optimism", 1)}${other("faith", 2)}${other("family", 3)}</div></div></body></html>`;
    const t = extractMainText(listing, "https://example.com/self-esteem").text;
    expect(t).toContain("how the optimism works");
    expect(t).toContain("how the family works");
  });
});
