import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><h1>Pros and cons of consulting</h1><div class="elementor-widget-wrap">${body}</div></main></body></html>`,
    "https://example.com/pros-and-cons-of-consulting",
  ).text;
const widget = (kind: string, inner: string) =>
  `<div class="elementor-element elementor-widget elementor-widget-${kind}"><div class="elementor-widget-container">${inner}</div></div>`;

describe("headings a page builder wraps in a widget of their own", () => {
  it("keeps a heading alone in a wrapper whose class says 'widget'", () => {
    const t = text(
      `${widget("text-editor", para("intro", 3))}${widget("heading", "<h3>Pro: Work on interesting problems</h3>")}${widget("text-editor", para("problem", 3))}${widget("heading", "<h3>Con: Long hours</h3>")}${widget("text-editor", para("hours", 3))}`,
    );
    expect(t).toContain("Pro: Work on interesting problems");
    expect(t).toContain("Con: Long hours");
    expect(t).toContain("how the hours works");
  });

  it("still prunes a widget whose lone heading is a link (a shelf's title naming more links)", () => {
    const t = text(
      `${widget("text-editor", para("intro", 3))}${widget("text-editor", para("problem", 3))}<div class="trends-widget"><h2><a href="/trending">Trending searches</a></h2></div>`,
    );
    expect(t).toContain("how the problem works");
    expect(t).not.toContain("Trending searches");
  });
});
