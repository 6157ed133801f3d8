import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://example.com/services/video-messaging") => extractMainText(html, url).text;

/** A card whose link wraps its title and excerpt (block elements), as page builders print them. */
const card = (title: string, excerpt: string, i: number) =>
  `<li class="card"><a href="/blog/post-${i}"><h3>${title}</h3><p>${excerpt}</p></a></li>`;
const teasers = (label: string) =>
  `<section class="band"><div class="inner"><header><p class="kicker">${label}</p></header><ul class="cards">${[
    [
      "Async video for remote teams",
      "This guide explores how recorded messages replace meetings, with examples from three teams.",
    ],
    [
      "When to choose a call over a message",
      "Synchronous and asynchronous work each have their place; here is how to decide between them.",
    ],
    ["Documentation without typing", "Turn any recording into a written document, a ticket or a how-to with the new workflows."],
  ]
    .map(([t, e], i) => card(t ?? "", e ?? "", i))
    .join("")}</ul></div></section>`;
const page = (after: string) =>
  `<html><body><main><section class="band"><h1>Video messaging for teams</h1>${para("recording", 3)}</section>
  <section class="band"><h2>Share anywhere</h2>${para("sharing", 3)}</section>${after}
  <section class="band"><h2>Enterprise security</h2>${para("security", 2)}</section></main></body></html>`;

describe("labelled sections of teasers (blog posts, insights, resources)", () => {
  it("drops a section of linked cards opened by a label naming other posts", () => {
    for (const label of [
      "From our blog",
      "Featured insights",
      "Latest news",
      "Related resources",
      "You may also like",
      "Featured client stories",
    ]) {
      const t = text(page(teasers(label)));
      expect(t).toContain("how the recording works");
      expect(t).toContain("how the security works");
      expect(t, label).not.toContain(label);
      expect(t).not.toContain("Async video for remote teams");
    }
  });

  it("drops cards under a label naming the site's other services ('Related services')", () => {
    for (const label of ["Related services", "Other services", "Explore our other services"]) {
      const t = text(page(teasers(label)));
      expect(t).toContain("how the security works");
      expect(t, label).not.toContain("Async video for remote teams");
    }
  });

  it("keeps a section with such a label whose cards are not links (the page's own text)", () => {
    const own = `<section class="band"><p class="kicker">Latest news</p>${para("release", 3)}<a href="/news">All news</a></section>`;
    expect(text(page(own))).toContain("how the release works");
  });

  it("keeps cards under a label that names something else ('Our services')", () => {
    expect(text(page(teasers("Our services")))).toContain("Async video for remote teams");
  });

  it("keeps labelled sections of teasers on a page that is made of them (a blog's front page)", () => {
    const front = `<html><body><main><h1>The blog</h1>${teasers("Latest articles")}${teasers("Popular posts")}${teasers("Product news")}</main></body></html>`;
    const t = text(front, "https://example.com/blog/");
    expect(t).toContain("Async video for remote teams");
    expect(t).toContain("Latest articles");
  });
});

describe("a teaser label set beside a link in one short block", () => {
  const labelled = (head: string) =>
    `<section class="band"><div class="row"><div class="label">${head}</div></div><ul class="cards">${[
      ["Unclog a shower without chemicals", "If your shower drains slowly, these three steps clear most clogs in minutes."],
      ["Tank or tankless water heaters", "If your water heater is reaching the end of its life, here is how to choose."],
      ["The case for repiping early", "Many homeowners do not think about repiping until a pipe bursts; plan ahead."],
    ]
      .map(([t, e], i) => card(t ?? "", e ?? "", i))
      .join("")}</ul></section>`;

  it("reads 'Recent Posts' and 'View All' as two words and drops the strip", () => {
    const t = text(page(labelled(`<span>Recent Posts</span><a href="/blog">View All</a>`)));
    expect(t).toContain("how the sharing works");
    expect(t).not.toContain("Unclog a shower without chemicals");
  });

  it("keeps cards under a label that names no other pages", () => {
    const t = text(page(labelled(`<span>Our services</span><a href="/services">View All</a>`)));
    expect(t).toContain("Unclog a shower without chemicals");
  });
});
