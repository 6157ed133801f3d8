import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const page = (body: string) =>
  extractMainText(
    `<!doctype html><html><head><meta property="og:type" content="article"></head><body><main><article><h1>Progress report</h1>${body}</article></main></body></html>`,
    "https://blog.example.com/progress-report-39",
  ).text;
const links = (titles: string[]) =>
  `<div class="ulist"><ul>${titles.map((t, i) => `<li><p><a href="/changes/${i}">${t}</a></p></li>`).join("")}</ul></div>`;
const changes = [
  "Support floating point types in casts",
  "Allow casts between integers and pointers",
  "Add the weak variable attribute",
];

describe("a list of links that a sentence introduces", () => {
  it("keeps the entries a sentence ending with a colon names", () => {
    const t = page(`${para("compiler", 4)}<p>Many patches were sent for review:</p>${links(changes)}${para("release", 4)}`);
    expect(t).toContain("Allow casts between integers and pointers");
    expect(t).toContain("how the release works");
  });

  it("still drops a list of the site's other posts after an invitation to read them", () => {
    const t = page(
      `${para("compiler", 4)}${para("release", 4)}<p>If you liked this post you might also like:</p>${links(changes)}`,
    );
    expect(t).toContain("how the release works");
    expect(t).not.toContain("Allow casts between integers and pointers");
  });
});
