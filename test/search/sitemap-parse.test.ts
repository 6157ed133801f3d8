import { describe, expect, it } from "vitest";
import { parseSitemap } from "../../functions/search/sitemap.ts";

describe("parseSitemap", () => {
  it("reads <loc> values (prefixed, with attributes, CDATA, entities), skips comments, tells an index", () => {
    const xml = `<?xml version="1.0"?><urlset><url><loc>https://a.example/1</loc></url><!-- <url><loc>https://a.example/hidden</loc></url> -->
      <url><image:loc>https://a.example/img.png</image:loc><loc id="x" >https://a.example/2?a=1&amp;b=2</loc></url><url><loc><![CDATA[https://a.example/3]]></loc></url>
      <url><locale>en</locale><loc/></url></urlset>`;
    expect(parseSitemap(xml)).toEqual({
      index: false,
      locs: ["https://a.example/1", "https://a.example/img.png", "https://a.example/2?a=1&b=2", "https://a.example/3"],
    });
    expect(parseSitemap("<sitemapindex><sitemap><loc>/a.xml</loc></sitemap></sitemapindex>")).toEqual({
      index: true,
      locs: ["/a.xml"],
    });
  });

  it("a sitemap of 400,000 unclosed <loc>s or comments is read in one pass (each was a pass to the end)", () => {
    const head = "<urlset><url><loc>https://a.example/1</loc></url>";
    expect(parseSitemap(`${head}${"<loc>x".repeat(400_000)}`).locs).toEqual(["https://a.example/1"]);
    expect(parseSitemap(`${head}${"<loc x".repeat(400_000)}`).locs).toEqual(["https://a.example/1"]);
    // An unclosed comment leaves the text after it, as before; the <loc> before it counts.
    expect(parseSitemap(`${head}${"<!-- x".repeat(400_000)}<loc>https://a.example/2</loc>`).locs).toEqual([
      "https://a.example/1",
      "https://a.example/2",
    ]);
  });
});
