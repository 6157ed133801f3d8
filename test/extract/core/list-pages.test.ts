import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url: string) => extractMainText(html, url).text;

const names = (letter: string) =>
  Array.from({ length: 12 }, (_, i) => `<li><a href="/wiki/${letter}${i}">${letter}lang ${i}</a></li>`).join("");

describe("list articles (an index of links under a short intro)", () => {
  it("keeps the lists of a page that calls itself an article but is an index of links", () => {
    const sections = ["A", "B", "C", "D"].map((l) => `<h2>${l}</h2><div class="columns"><ul>${names(l)}</ul></div>`).join("");
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article>
      <h1>List of programming languages</h1>
      <p>This is an index to notable programming languages, in current or historical use, with links to each.</p>
      ${sections}</article></main></body></html>`;
    const t = text(html, "https://example.org/wiki/List_of_programming_languages");
    for (const name of ["Alang 0", "Blang 5", "Dlang 11"]) expect(t).toContain(name);
  });

  it("still drops a link list at the end of an article whose text is prose", () => {
    const html = `<html><head><meta property="og:type" content="article"></head><body><main><article>
      <h1>How rivers carve canyons</h1>${para("canyon")}${para("erosion")}${para("sediment")}
      <div class="more"><ul>${names("R")}</ul></div></article></main></body></html>`;
    const t = text(html, "https://example.org/wiki/Canyons");
    expect(t).toContain("how the erosion works");
    expect(t).not.toContain("Rlang 3");
  });
});
