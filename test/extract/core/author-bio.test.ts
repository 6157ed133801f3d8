import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (author: string, tail: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"><meta name="author" content="${author}"></head><body><main><article><h1>How to repot a fiddle-leaf fig</h1>${para("soil", 4)}${para("roots", 4)}${para("watering", 4)}${tail}</article></main></body></html>`,
    "https://example.com/repot-a-fiddle-leaf-fig",
  ).text;
const bio =
  "<p>Arricca Elin SanSone is a writer and editor who specializes in lifestyle and gardening. With more than twenty years of experience, she has written for many national magazines.</p>";

describe("the bio of the page's own author under the story", () => {
  it("drops a closing paragraph that says who the page's author is", () => {
    const t = page("Arricca Elin SanSone", bio);
    expect(t).toContain("how the watering works");
    expect(t).not.toContain("is a writer and editor");
  });

  it("drops it for each of several authors", () => {
    const t = page("Manoj Jain and Arricca Elin SanSone", bio);
    expect(t).not.toContain("is a writer and editor");
  });

  it("keeps the same paragraph when it is about someone else than the page's author", () => {
    const t = page("Jared Newman", bio);
    expect(t).toContain("Arricca Elin SanSone is a writer and editor");
  });

  it("keeps a closing paragraph that names the author in a sentence of the story", () => {
    const t = page(
      "Arricca Elin SanSone",
      "<p>Arricca Elin SanSone repotted her own fig last spring and found that the roots had circled the pot twice over.</p>",
    );
    expect(t).toContain("repotted her own fig last spring");
  });
});
