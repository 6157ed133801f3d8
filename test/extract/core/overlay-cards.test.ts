import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const story = Array.from(
  { length: 12 },
  (_, i) =>
    `<p>Paragraph ${i + 1} of the guide: a waterfall project moves through fixed phases, each signed off before the next begins, which suits teams with stable requirements, a fixed budget and a client who wants a clear plan.</p>`,
).join("");

const posts = [
  [
    "Explaining the Power of Lifetime Value",
    "How to calculate customer lifetime value and how to grow it in an online shop over a year.",
  ],
  [
    "How to Estimate Software Development Time",
    "Methods, best practices and the key factors that keep a project on track and within budget.",
  ],
  [
    "A Walk-Through of Building a Money Transfer App",
    "Building a money transfer app does not have to be hard: here is how to make it happen.",
  ],
  [
    "How to Improve Online Sales in Twenty Steps",
    "Twenty tried-and-true tips and tricks for boosting the revenue of an online shop this year.",
  ],
  [
    "The Cost of Hiring a Software Developer",
    "Hourly rates, team models and cost-saving approaches when hiring developers for a new product.",
  ],
  [
    "Seven Benefits of Usability Testing",
    "Usability testing cannot be ignored if you want to launch your product successfully: our guide.",
  ],
  [
    "Creating Your Own Dating App from Scratch",
    "The opportunities for growth in the dating app industry, and how to build an app that can compete.",
  ],
  [
    "Why Offensive Security Is Key to Managing Risk",
    "Penetration testing and red teaming find the weak spots, help manage risk and keep you compliant.",
  ],
];

/** A teaser card: the title and excerpt are plain text; an empty anchor stretched over the card links it. */
const card = ([title, excerpt]: string[], href: string) =>
  `<div class="slider-child"><div class="teaser"><div class="teaser-image"><img alt="${title}" src="/i.jpg"></div>
  <a aria-label="${title}" class="teaser-link" href="${href}"></a><div class="teaser-content">
  <div class="teaser-tags"><span>Guides</span></div><div class="teaser-title">${title}</div>
  <div class="teaser-text">${excerpt}</div><div class="teaser-date">Jan 3, 2025</div></div></div></div>`;

const page = (grid: string) => `<html><head><meta property="og:type" content="article"></head><body>
  <div class="page"><div class="article-page"><div class="main-column"><h1>Software Development Models Compared</h1>
  <div class="body">${story}</div></div>${grid}</div></div><footer>About us</footer></body></html>`;

describe("cards under empty overlay links", () => {
  it("a 'related' slider of overlay-linked cards goes, though its text reads as prose", () => {
    const grid = `<div class="RelatedArticles_container"><div class="slider">
      <div class="slider-wrapper">${posts.map((p, i) => card(p, `/blog/post-${i}`)).join("")}</div></div></div>`;
    const t = text(page(grid), "https://startups.example.com/blog/sdlc-models");
    expect(t).toContain("Paragraph 12 of the guide");
    for (const [title, excerpt] of posts) {
      expect(t).not.toContain(title);
      expect(t).not.toContain(excerpt);
    }
  });

  it("prose under a furniture name with icon links (share buttons, profiles on other sites) stays", () => {
    const icons = ["linkedin.com/in/a", "twitter.com/a", "facebook.com/a", "pinterest.com/a"]
      .map((u) => `<a class="icon" aria-label="Share this story on ${u.split(".")[0]}" href="https://${u}"></a>`)
      .join("");
    const share = (n: number) => `<a class="icon" aria-label="Share this story on the site" href="#s${n}"></a>`;
    const grid = `<div class="share-wrapper-story">${icons}${share(1)}${share(2)}${share(3)}<div class="story-part">${story
      .split("</p>")
      .slice(0, 6)
      .join("</p>")
      .replaceAll("of the guide", "of the second part")}</p></div></div>`;
    const t = text(page(grid), "https://startups.example.com/blog/sdlc-models");
    expect(t).toContain("Paragraph 6 of the second part");
  });
});
