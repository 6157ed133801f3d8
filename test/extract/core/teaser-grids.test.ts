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
