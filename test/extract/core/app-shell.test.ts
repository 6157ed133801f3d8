import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

/** A site footer: link columns under small headings, as shops print on every page. */
const footer = (open = "<footer>", close = "</footer>") =>
  `${open}<div class="site-footer"><div class="columns"><dl><dt><h5>Help</h5></dt><dd><a href="/help">Help centre</a>, <a href="/returns">Returns</a>, <a href="/report">Report a listing</a></dd></dl><dl><dt><h5>Our sites in other languages</h5></dt><dd><a href="//fr.example.com">French</a>, <a href="//de.example.com">German</a>, <a href="//es.example.com">Spanish</a></dd></dl></div>${close}`;

const read = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><title>Trail lantern</title></head><body>${body}</body></html>`,
    "https://shop.example.com/item/42.html",
  );

describe("a page whose body a script fills in (an app shell)", () => {
  it("finds no main content when all it ships is an empty mount point and the site footer", () => {
    const r = read(`<div id="header-mount" style="height: 72px"></div><div id="root"></div>${footer()}`);
    expect(r.text).toBe("");
    expect(r.root).toBeNull();
  });

  it("reads a contentinfo landmark as the footer too", () => {
    const r = read(`<div id="root"></div>${footer('<div role="contentinfo">', "</div>")}`);
    expect(r.text).toBe("");
  });

  it("keeps the page's content when the mount point was rendered", () => {
    const r = read(
      `<div id="root"><main><h1>Trail lantern</h1>${para("lantern beam", 3)}<p>Price: $24.00</p></main></div>${footer()}`,
    );
    expect(r.text).toContain("how the lantern beam works");
    expect(r.text).not.toContain("Our sites in other languages");
  });

  it("keeps an article's own footer line as part of the article", () => {
    const r = read(
      `<article><h1>Trail lantern review</h1>${para("lantern beam", 3)}<footer><p>Filed under camping gear and night hikes, with notes on batteries.</p></footer></article>`,
    );
    expect(r.text).toContain("how the lantern beam works");
  });
});
