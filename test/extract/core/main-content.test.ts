import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { articlePage, docsPage, forumPage, listingPage, para, productPage, servicePage } from "./pages.ts";

const text = (html: string, url = "https://example.com/page") => extractMainText(html, url).text;

describe("main content by page type", () => {
  it("article: keeps the body, drops nav, sidebar, cookie banner, share bar, related links and comments", () => {
    const t = text(articlePage, "https://example.com/2024/05/canyons");
    for (const topic of ["canyon", "erosion", "sediment"]) expect(t).toContain(`how the ${topic} works`);
    for (const junk of [
      "About us",
      "Most read",
      "cookies",
      "Share on Twitter",
      "Related articles",
      "First! Great article",
      "Copyright",
    ])
      expect(t).not.toContain(junk);
  });

  it("forum thread: keeps every post, comment-like containers included", () => {
    const t = text(forumPage, "https://forum.example.com/t/winter-tents/123");
    for (const topic of ["tent", "sleeping bag", "stove", "snow anchor"]) expect(t).toContain(`how the ${topic} works`);
    expect(t).not.toContain("Most read");
  });

  it("product page: keeps name, price, description and specs; drops recommendations", () => {
    const t = text(productPage);
    for (const want of ["$129.00", "how the shoe sole works", "280 g", "Recycled mesh"]) expect(t).toContain(want);
    expect(t).not.toContain("You may also like");
    expect(t).not.toContain("cookies");
  });

  it("listing: keeps every item of the grid with its price", () => {
    const t = text(listingPage);
    for (const want of ["Morning Blend", "Dark Roast Supreme", "Holiday Spice", "$16.99"]) expect(t).toContain(want);
    expect(t).not.toContain("About us");
  });

  it("documentation: keeps code blocks and tables, drops the docs navigation", () => {
    const t = text(docsPage);
    expect(t).toContain('"logLevel": "info"');
    expect(t).toContain("Port to listen on");
    expect(t).toContain("how the environment variable works");
    expect(t).not.toContain("Install");
  });

  it("service page: keeps the offer, list and prices; drops the newsletter box", () => {
    const t = text(servicePage);
    for (const want of ["Burst pipes and leaks", "Call-out from $79", "how the plumbing service works"])
      expect(t).toContain(want);
    expect(t).not.toContain("newsletter");
    expect(t).not.toContain("Privacy policy");
  });

  it("keeps the crawler view that apps put in <noscript>", () => {
    const html = `<html><body><div id="app"></div><noscript><div class="post">${para("noscript", 3)}</div></noscript></body></html>`;
    expect(text(html)).toContain("how the noscript works");
  });

  it("thread of short posts that scores no higher than the page: the posts' container, not the whole page", () => {
    const chrome = Array.from(
      { length: 8 },
      (_, i) => `<p>Install the app on your phone, step ${i}: tap the share icon, then add to the home screen, then confirm.</p>`,
    ).join("");
    const post = (who: string, words: string) =>
      `<article class="entry"><div class="entry__author">${who}</div><div class="entry__post"><p>${words}</p></div></article>`;
    const html = `<html><body><div class="install-help">${chrome}</div><div class="thread">
      ${post("ron", "Hi, I would like to know the roadmap for future releases of the product. Thanks!")}
      ${post("paul", "For more insight into the roadmap, check whether you can join the partner circle.")}
      ${post("ana", "Same question here; the changelog only lists changes to released versions.")}
      </div></body></html>`;
    const t = text(html, "https://forum.example.com/topic/123-roadmap/");
    for (const want of ["roadmap for future releases", "partner circle", "changelog only lists"]) expect(t).toContain(want);
    expect(t).not.toContain("Install the app");
  });

  it("keeps a page hidden by class or aria-hidden until its scripts run; drops a small hidden block", () => {
    for (const attrs of ['class="root hide"', 'class="page hidden"', 'aria-hidden="true"']) {
      const html = `<html><body><div class="preloader hide"></div><div ${attrs}><main>${para("hidden page", 4)}${para("reveal", 3)}</main>
        <div class="hidden"><p>Mobile menu copy that is never shown on the desktop layout.</p></div></div></body></html>`;
      const t = text(html);
      expect(t).toContain("how the hidden page works");
      expect(t).not.toContain("Mobile menu copy");
    }
  });

  it("keeps collapsed panels a control reveals, drops other hidden elements", () => {
    const html = `<html><body><main>${para("visible", 3)}<button aria-controls="more">Read more</button><div id="more" style="display:none">${para("collapsed", 2)}</div><div style="display:none">Secret tracking text</div></main></body></html>`;
    const t = text(html);
    expect(t).toContain("how the collapsed works");
    expect(t).not.toContain("Secret tracking text");
  });

  it("a page that is a link and its comment thread keeps the comments (no forum URL or markup)", () => {
    const reply = (who: string, topic: string) =>
      `<li class="comment"><a href="/u/${who}">${who}</a><div class="comment_text">${para(topic)}</div></li>`;
    const html = `<html><body><header><a href="/">Home</a> <a href="/new">New</a></header>
      <div class="story"><a href="https://example.org/post">Project goals for 2024</a> <a href="/u/ann">ann</a></div>
      <ol class="comments">${reply("bob", "borrow checker")}${reply("cat", "async runtime")}${reply("dan", "macro system")}</ol>
      <footer><a href="/about">About</a></footer></body></html>`;
    const t = text(html, "https://links.example.com/s/abc123/project_goals_for_2024");
    for (const topic of ["borrow checker", "async runtime", "macro system"]) expect(t).toContain(`how the ${topic} works`);
  });

  it("an article with a long comment section still drops the comments", () => {
    const reply = (topic: string) => `<li class="comment">${para(topic)}</li>`;
    const html = `<html><body><div class="post"><h1>Canyons</h1>${para("canyon")}${para("erosion")}</div>
      <ol class="comments">${reply("tent")}${reply("stove")}${reply("kayak")}${reply("bike")}</ol></body></html>`;
    const t = text(html, "https://example.com/2024/05/canyons");
    expect(t).toContain("how the canyon works");
    expect(t).not.toContain("how the kayak works");
  });

  it("never returns nothing while the page has text", () => {
    expect(text("<html><body><div>Just one short line.</div></body></html>")).toBe("Just one short line.");
    // Furniture-only pages keep their furniture rather than come back empty.
    expect(text("<html><body><nav><a href='/'>Only a menu</a></nav></body></html>")).toContain("Only a menu");
  });

  it("returns no root for a page without text", () => {
    expect(
      extractMainText("<html><body><img src='a.png'><script>var x = 1;</script></body></html>", "https://e.com/").root,
    ).toBeNull();
  });

  it("article cleanup: drops headline, dateline, captions, ad labels, related lists and trailing promos", () => {
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article>
      <h1>Big story of the day</h1><div class="dateline">Updated 10:41 AM, November 19, 2019</div>
      ${para("story", 3)}
      <figure><img src="a.jpg"><div class="newsCaption">A photo of the river at dawn</div></figure>
      <div>Advertisement</div>
      ${para("follow-up", 3)}
      <div class="box"><h3>Read more</h3><ul><li><a href="/1">Another story entirely</a></li><li><a href="/2">A second story here</a></li></ul></div>
      <p>Subscribe to our newsletter for the best stories every morning.</p>
    </article></main></body></html>`;
    const t = text(html, "https://news.example.com/2019/11/19/story");
    expect(t).toContain("how the story works");
    expect(t).toContain("how the follow-up works");
    for (const junk of [
      "Big story of the day",
      "Updated 10:41",
      "photo of the river",
      "Advertisement",
      "Another story",
      "newsletter",
    ])
      expect(t).not.toContain(junk);
  });
});
