import { describe, expect, it } from "vitest";
import { extractReply } from "../../containers/agent/extract-reply.ts";
import { extractHtml, MAX_ELEMENTS } from "../../functions/extract/extract.ts";

const opts = { url: "https://example.com/", format: "markdown" as const, links: false, imageLinks: false };
const words = "Ospreys dive feet first into the water to catch fish, and carry them head first to reduce drag.";

// The agent's `extract` action tells the model what the page says, or why it cannot be read.
describe("extract action reply", () => {
  it("gives the page's Markdown, cut to the limit, after the question", () => {
    const out = extractHtml(`<html><body><article><h1>Ospreys</h1><p>${words.repeat(5)}</p></article></body></html>`, opts);
    const reply = extractReply(out, "how do they fish", 60);
    expect(reply).toMatch(/^Looking for: how do they fish\nPage content as Markdown:\n# Ospreys\n\nOspreys dive/);
    expect(reply).toMatch(/\n\n\(\d+ more characters left out\)$/);
  });

  it("says why a page past the element bound cannot be read, and that an empty one has no text", () => {
    const huge = extractHtml(`<html><body><p>${words}</p>${"<i>".repeat(MAX_ELEMENTS)}</body></html>`, opts);
    expect(extractReply(huge, undefined, 1000)).toBe(
      "The page could not be read as Markdown. The page has 1,500,003 tags, more than the 1,500,000 elements a page may have to be read.",
    );
    const empty = extractHtml(
      "<html><head><title>Shell</title></head><body><div id='root'></div><script src='/app.js'></script></body></html>",
      opts,
    );
    expect(extractReply(empty, "anything", 1000)).toBe("The page has no readable text content.");
  });
});
