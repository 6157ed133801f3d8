import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Awards row</h1><div class="story-body">${para("award", 3)}${para("management", 3)}${tail}</div><div class="story-more"><ul class="tags-list"><li><a href="/music">Music</a></li><li><a href="/pop">Pop</a></li></ul></div></article></main></body></html>`,
    "https://example.com/news/awards-row",
  ).text;

describe("closing notes followed by a short line", () => {
  it("drops a follow-us note and the short line after it, past an emptied block at the end", () => {
    const t = text(
      `<p><i>Follow Newsbeat on </i><a href="https://instagram.com/x">Instagram</a><i> and </i><a href="https://twitter.com/x">Twitter</a>.</p><p><i>Listen to Newsbeat </i><a href="/live">live</a><i> at 12:45 weekdays.</i></p>`,
    );
    expect(t).toContain("how the management works");
    expect(t).not.toContain("Follow Newsbeat");
    expect(t).not.toContain("Listen to Newsbeat");
  });

  it("keeps the short last lines of a story when no closing note precedes them", () => {
    const t = text(`<p>The ceremony is on Sunday.</p><p>Tickets sold out in an hour.</p>`);
    expect(t).toContain("The ceremony is on Sunday.");
    expect(t).toContain("Tickets sold out in an hour.");
  });
});
