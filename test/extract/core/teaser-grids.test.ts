import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const URL = "https://www.example.com/blog/organise-a-home-office";
const page = (main: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main>${main}</main></body></html>`,
    URL,
  ).text;
const excerpt = (topic: string) =>
  `<p>Short summary of the ${topic} story, two lines of it, as the blog prints under every card in its grid of posts.</p>`;
const card = (title: string, href: string, topic: string) =>
  `<div class="post-card"><h3 class="post-card__title"><a href="${href}">${title}</a></h3>${excerpt(topic)}<div class="post-card__date">Mar 3, 2026</div></div>`;
const grid = (host = "") =>
  `<div class="post-grid">${card("How to group pantry items", `${host}/blog/pantry`, "pantry")}${card("How to organise random stuff", `${host}/blog/floaters`, "floaters")}${card("Where to keep your tax documents", `${host}/blog/taxes`, "taxes")}</div>`;

describe("grids of the site's other posts beside an article", () => {
  it("drops a grid of linked post cards with excerpts under the story, inside the article", () => {
    const t = page(
      `<article><h1>Organise a home office</h1><div class="entry">${para("desk", 4)}${para("drawer", 4)}${para("shelf", 4)}</div>${grid()}</article>`,
    );
    expect(t).toContain("how the shelf works");
    expect(t).not.toContain("How to group pantry items");
    expect(t).not.toContain("Short summary of the pantry story");
  });

  it("does not grow a short article's root over a grid of other posts beside it", () => {
    const t = page(
      `<div class="post"><h1>Organise a home office</h1><div class="post-body">${para("desk", 4)}${para("chair", 4)}${para("drawer", 4)}</div></div><section class="more"><div class="post-grid">${Array.from({ length: 9 }, (_, i) => card(`Another post of the blog, number ${i + 1}`, `/blog/post-${i + 1}`, `post ${i + 1}`)).join("")}</div></section>`,
    );
    expect(t).toContain("how the drawer works");
    expect(t).not.toContain("Short summary of the post 4 story");
  });

  it("keeps a list article's items that link to other sites", () => {
    const item = (title: string, href: string, topic: string) =>
      `<div class="item"><h3><a href="${href}">${title}</a></h3>${excerpt(topic)}</div>`;
    const t = page(
      `<article><h1>Best desk lamps</h1>${para("lamp", 3)}<div class="items">${item("BenQ ScreenBar Halo lamp", "https://www.benq.com/halo", "halo")}${item("Dyson Solarcycle Morph lamp", "https://www.dyson.com/morph", "morph")}${item("IKEA Forså work lamp", "https://www.ikea.com/forsa", "forsa")}</div></article>`,
    );
    expect(t).toContain("BenQ ScreenBar Halo lamp");
    expect(t).toContain("Short summary of the morph story");
  });

  it("keeps the cards of a blog index typed as an article (no story of its own beside them)", () => {
    const t = page(`<h1>The blog</h1><p>News and guides from our team.</p>${grid()}${grid()}`);
    expect(t).toContain("Short summary of the pantry story");
    expect(t).toContain("Short summary of the taxes story");
  });
});

describe("post cards titled by a block classed a title", () => {
  // A page builder's posts widget: the card's title is a <p> classed a title around the link.
  const builderCard = (title: string, href: string, topic: string) =>
    `<article class="elementor-post"><div class="elementor-post__text"><p class="elementor-post__title"><a href="${href}">${title}</a></p><div class="elementor-post__excerpt">${excerpt(topic)}</div></div></article>`;
  const builderGrid = (host: string) =>
    `<div class="elementor-posts-container">${builderCard("Will machines replace photographers?", `${host}/machines`, "machines")}${builderCard("Authenticity in modern photography", `${host}/authenticity`, "authenticity")}${builderCard("Thirteen ways to improve your photos", `${host}/thirteen`, "thirteen")}</div>`;
  const story = (grid: string) =>
    `<article><h1>Organise a home office</h1><div class="entry">${para("desk", 4)}${para("drawer", 4)}${para("shelf", 4)}</div>${grid}</article>`;

  it("drops the cards of the site's other posts under the story", () => {
    const t = page(story(builderGrid("https://www.example.com/blog")));
    expect(t).toContain("how the shelf works");
    expect(t).not.toContain("Short summary of the machines story");
  });

  it("keeps cards whose titles link to other sites", () => {
    const t = page(story(builderGrid("https://photo.example.org")));
    expect(t).toContain("Short summary of the machines story");
  });
});

describe("grids of other posts nested in a section after the article", () => {
  const cards = (n: number, from = 1) =>
    Array.from({ length: n }, (_, i) =>
      card(`Another post of the blog, number ${from + i}`, `/blog/post-${from + i}`, `post ${from + i}`),
    ).join("");
  // A theme's "From the blog" section: a heading and a carousel per category, under the story.
  const blogSection = `<section class="blog-carousel"><h2>From the blog</h2><div class="carousel"><h3>Latest guides</h3><div class="track">${cards(9)}</div></div></section>`;

  it("does not grow the article's root over a section of post grids after it", () => {
    const t = page(
      `<section class="article"><h1>Organise a home office</h1><div class="article__main">${para("desk", 4)}${para("chair", 4)}${para("drawer", 4)}</div></section>${blogSection}`,
    );
    expect(t).toContain("how the drawer works");
    expect(t).not.toContain("Short summary of the post 2 story");
    expect(t).not.toContain("Short summary of the post 7 story");
  });

  it("grows over such a section above the story: the guide's picks come first", () => {
    const picks = `<section class="intro"><h2>Our picks</h2><div class="picks"><h3>Top picks</h3><div class="track">${cards(4)}</div></div></section>`;
    const t = page(
      `${picks}<section class="article"><h1>Organise a home office</h1><div class="article__main">${para("desk", 4)}${para("chair", 4)}${para("drawer", 4)}</div></section>`,
    );
    expect(t).toContain("how the drawer works");
    expect(t).toContain("Short summary of the post 2 story");
  });
});
