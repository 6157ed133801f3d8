import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const story = (n: number, topic: string) =>
  Array.from(
    { length: n },
    (_, i) =>
      `<p>Paragraph ${i + 1} of ${topic}: a publisher reads the manuscript, weighs the market for it and offers an advance against royalties, and the author keeps the rights that the contract does not name.</p>`,
  ).join("");

/** The site's own sections that a theme puts under every post, beside <main>: prose with hardly a link. */
const siteSections = `<section class="contact-us"><div class="container"><h6>Connect With Us</h6><h2>We Would Love To Serve You</h2>
  <p>Our team of professionals is at your service round the clock. Do not hesitate to approach us, because we make things happen for our customers and we would love to hear about your book.</p></div></section>
  <section class="testimonial"><div class="container"><h2>Our amazing clients!</h2>
  <div class="item"><p>I have no words to express the service I received from the writers here. They left me amazed, and I am very much impressed by the quality of their work on my memoir.</p><h5>Clara Arnold</h5></div>
  <div class="item"><p>Since I started working with this team I have been at ease. They work round the clock and never give you a reason to be disappointed with the book they deliver.</p><h5>Johnson Henry</h5></div>
  <div class="item"><p>Thank you so much for the finest book writing service. They provided a complete solution and were always available to answer my questions about the chapters.</p><h5>Thomson Lucas</h5></div>
  </div></section>`;

describe("the root stops at the page's one <main>", () => {
  it("the site's sections beside <main> (contact, testimonials) are not added to the story", () => {
    const html = `<html><head><meta property="og:type" content="article"><title>Top Publishers</title></head><body>
      <header class="site-header"><a href="/">Home</a> <a href="/blog">Blog</a></header>
      <div class="hfeed"><main><div class="container"><section class="single-txt"><h1>Top 25 Book Publishing Companies</h1>${story(8, "the guide")}</section></div></main>
      ${siteSections}</div><footer>© Ghostwriters</footer></body></html>`;
    const t = text(html, "https://ghost.example.com/blog/top-publishers/");
    expect(t).toContain("Paragraph 8 of the guide");
    expect(t).not.toContain("We Would Love To Serve You");
    expect(t).not.toContain("Clara Arnold");
  });

  it("a page with several <main> elements still grows over the story's parts", () => {
    const html = `<html><head><meta property="og:type" content="article"><title>Top Publishers</title></head><body>
      <div class="story"><div class="part"><main><h1>Top 25 Book Publishing Companies</h1>${story(8, "the guide")}</main></div>
      <div class="part"><main>${story(6, "the second part")}</main></div></div><footer>© Ghostwriters</footer></body></html>`;
    const t = text(html, "https://ghost.example.com/blog/top-publishers/");
    expect(t).toContain("Paragraph 8 of the guide");
    expect(t).toContain("Paragraph 6 of the second part");
  });

  it("so does a page that is no article (a service page's description in <main>)", () => {
    const html = `<html><head><title>Ghostwriting Services</title></head><body>
      <header class="site-header"><a href="/">Home</a> <a href="/services">Services</a></header>
      <div class="hfeed"><main><div class="container"><section class="single-txt"><h1>Ghostwriting Services</h1>${story(8, "our services")}</section></div></main>
      ${siteSections}</div><footer>© Ghostwriters</footer></body></html>`;
    const t = text(html, "https://ghost.example.com/services/ghostwriting/");
    expect(t).toContain("Paragraph 8 of our services");
    expect(t).not.toContain("Clara Arnold");
  });
});
