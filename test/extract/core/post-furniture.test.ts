import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://forum.example.com/topic/4242-winter-tents/") => extractMainText(html, url).text;

const signature = `<div class="entry__signature"><p>Community Leader, outdoor gear tester and trip planner. I build custom packing lists for hikers, ski tourers and families, with tips for every season and budget; have a look at my site, and buy me a coffee if this helped you out on the trail.</p></div>`;
/** Invision-style posts: each wrapped in an element whose id names it a comment. */
const post = (i: number, topic: string) =>
  `<article class="entry" id="elComment_${i}"><div class="entry__content" id="comment-${i}_wrap"><div class="entry__post">${para(topic, 2)}${signature}</div></div></article>`;
const thread = `<html><body><main><h1>Which tent for winter?</h1><div class="feed">${post(1, "tent")}${post(2, "pole")}${post(3, "stake")}</div></main></body></html>`;

describe("furniture inside the posts of a thread", () => {
  it("drops a signature inside posts that are marked up as comments", () => {
    const t = text(thread);
    expect(t).toContain("how the tent works");
    expect(t).toContain("how the stake works");
    expect(t).not.toContain("buy me a coffee");
  });

  it("still drops the comment section under an article", () => {
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>Tents</h1>${para("canyon", 4)}</article>
      <div class="comments"><div class="comment">${para("reader", 2)}${signature}</div></div></main></body></html>`;
    const t = text(html, "https://example.com/2024/tents");
    expect(t).toContain("how the canyon works");
    expect(t).not.toContain("how the reader works");
  });
});
