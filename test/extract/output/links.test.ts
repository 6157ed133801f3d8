import { describe, expect, it } from "vitest";
import { largestSrcsetUrl } from "../../../functions/extract/output/images.ts";
import { collectImageLinks, collectLinks } from "../../../functions/extract/output/links.ts";
import { BASE, body } from "./helpers.ts";

describe("collectLinks", () => {
  it("absolute http(s) URLs in document order, de-duplicated", () => {
    const html =
      '<a href="/a">1</a><a href="b">2</a><a href="//cdn.example.org/c">3</a><a href="https://example.com/a">dup</a>' +
      '<a href="http://plain.example/x?y=1#frag">4</a><area href="/map">';
    expect(collectLinks(body(html), BASE)).toEqual([
      "https://example.com/a",
      "https://example.com/blog/b",
      "https://cdn.example.org/c",
      "http://plain.example/x?y=1#frag",
      "https://example.com/map",
    ]);
  });

  it("leaves out in-page anchors, javascript:, mailto:, tel:, data: and unparsable hrefs", () => {
    const html =
      '<a href="#top">t</a><a href="javascript:void(0)">j</a><a href="mailto:a@b.c">m</a><a href="tel:+1">p</a>' +
      '<a href="data:text/html,x">d</a><a href="http://[bad">u</a><a href="">empty</a><a>none</a><a href="ftp://f.example/x">f</a>';
    expect(collectLinks(body(html), BASE)).toEqual([]);
  });

  it("an empty href is the page itself and is left out like an anchor; a page link with a fragment is kept", () => {
    expect(collectLinks(body('<a href="  #x ">a</a><a href="post.html#x">b</a>'), BASE)).toEqual([
      "https://example.com/blog/post.html#x",
    ]);
  });

  it("searches what the text outputs show: not scripts, templates or hidden elements, but image maps", () => {
    const html =
      '<template><a href="/t">t</a></template><div hidden><a href="/h">h</a></div><script>"<a href=/s>"</script>' +
      '<map name="m"><area href="/area"></map><a href="/ok">ok</a>';
    expect(collectLinks(body(html), BASE)).toEqual(["https://example.com/area", "https://example.com/ok"]);
  });

  it("resolves against <base href>", () => {
    expect(collectLinks(body('<a href="p">p</a>', '<base href="https://b.example/d/">'), BASE)).toEqual([
      "https://b.example/d/p",
    ]);
  });

  it("only links inside the scope element", () => {
    const root = body('<nav><a href="/nav">n</a></nav><article id="a"><a href="/in">i</a></article>').querySelector("#a");
    expect(root && collectLinks(root, BASE)).toEqual(["https://example.com/in"]);
  });
});

describe("collectImageLinks", () => {
  it("img src made absolute, in order, de-duplicated", () => {
    const html = '<img src="a.png"><img src="/b.png"><img src="//cdn.example.org/c.png"><img src="a.png">';
    expect(collectImageLinks(body(html), BASE)).toEqual([
      "https://example.com/blog/a.png",
      "https://example.com/b.png",
      "https://cdn.example.org/c.png",
    ]);
  });

  it("takes the largest srcset candidate, by width or density", () => {
    const html = '<img src="s.jpg" srcset="s.jpg 320w, l.jpg 1280w, m.jpg 640w"><img srcset="x1.jpg, x3.jpg 3x, x2.jpg 2x">';
    expect(collectImageLinks(body(html), BASE)).toEqual(["https://example.com/blog/l.jpg", "https://example.com/blog/x3.jpg"]);
  });

  it("srcset URLs may contain commas", () => {
    expect(largestSrcsetUrl("https://img.example/w_100,h_50/a.jpg 100w, https://img.example/w_800,h_400/a.jpg 800w")).toBe(
      "https://img.example/w_800,h_400/a.jpg",
    );
    expect(largestSrcsetUrl("")).toBeNull();
  });

  it("lazy images: data-src, data-lazy-src, data-original and data-srcset win over placeholder src", () => {
    const html =
      '<img src="data:image/gif;base64,R0lGOD" data-src="/one.jpg"><img src="/blank.gif" data-lazy-src="/two.jpg">' +
      '<img data-original="three.jpg"><img data-srcset="/four-s.jpg 1x, /four-l.jpg 2x">';
    expect(collectImageLinks(body(html), BASE)).toEqual([
      "https://example.com/one.jpg",
      "https://example.com/two.jpg",
      "https://example.com/blog/three.jpg",
      "https://example.com/four-l.jpg",
    ]);
  });

  it("never reports data: URLs", () => {
    const html = '<img src="data:image/png;base64,iVBORw0KGgo="><img srcset="data:image/png;base64,AA 1x"><img src="ok.png">';
    expect(collectImageLinks(body(html), BASE)).toEqual(["https://example.com/blog/ok.png"]);
  });

  it("<picture>: the img's URL, or the sources when the img has none", () => {
    const withImg = '<picture><source srcset="/p.webp" type="image/webp"><img src="/p.jpg"></picture>';
    expect(collectImageLinks(body(withImg), BASE)).toEqual(["https://example.com/p.jpg"]);
    const sourcesOnly = '<picture><source srcset="/s-1.avif 1x, /s-2.avif 2x"><img src="data:,"></picture>';
    expect(collectImageLinks(body(sourcesOnly), BASE)).toEqual(["https://example.com/s-2.avif"]);
  });

  it("includes <noscript> fallback images (the real ones behind lazy loading), not hidden ones", () => {
    const html = '<img src="data:," data-x="1"><noscript><img src="/real.jpg"></noscript><img hidden src="/h.jpg">';
    expect(collectImageLinks(body(html), BASE)).toEqual(["https://example.com/real.jpg"]);
  });

  it("resolves against <base href>", () => {
    expect(collectImageLinks(body('<img src="i.png">', '<base href="/static/">'), BASE)).toEqual([
      "https://example.com/static/i.png",
    ]);
  });
});
