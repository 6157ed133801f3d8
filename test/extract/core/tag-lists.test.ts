import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Stock car calendar</h1>${body}</article></main></body></html>`,
    "https://example.com/stock-car-calendar",
  ).text;
const tag = (t: string) => `<a href="/tag/${t.replace(/ /g, "-")}" rel="tag">${t}</a>`;

describe("tag lists under a post", () => {
  it("drops a block of rel=tag links with a short label", () => {
    const t = text(
      `${para("calendar", 3)}${para("season", 3)}<strong>Tags<br>${["calendar stock car", "stock car brasil", "stock car interlagos"].map(tag).join(", ")}</strong>`,
    );
    expect(t).toContain("how the season works");
    expect(t).not.toContain("stock car brasil");
  });

  it("keeps a paragraph of prose that links terms to their tag pages", () => {
    const t = text(
      `${para("calendar", 3)}<p>The season opens at ${tag("stock car interlagos")} and closes in ${tag("stock car brasil")} country, as the organisers announced in January after a long meeting.</p>${para("season", 3)}`,
    );
    expect(t).toContain("The season opens at stock car interlagos");
  });
});
