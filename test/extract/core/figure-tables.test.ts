import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://www.example.com/research/home-prices") => extractMainText(html, url).text;

const story = (figure: string) =>
  `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>Home prices by state</h1>${para("market", 4)}${figure}${para("mortgage", 4)}</article></main></body></html>`;

describe("tables a figure wraps in an article", () => {
  it("keeps a data table in a block editor's figure (WordPress wp-block-table)", () => {
    const rows = ["Connecticut|91.0", "New Jersey|87.8", "Massachusetts|85.7", "Rhode Island|84.5"]
      .map(
        (r) =>
          `<tr>${r
            .split("|")
            .map((c) => `<td>${c}</td>`)
            .join("")}</tr>`,
      )
      .join("");
    const t = text(
      story(
        `<details><summary>Data: market scores</summary><figure class="wp-block-table"><table><thead><tr><th>State</th><th>Composite score</th></tr></thead><tbody>${rows}</tbody></table></figure></details>`,
      ),
    );
    expect(t).toContain("Composite score");
    expect(t).toContain("New Jersey\t87.8");
    expect(t).toContain("how the mortgage works");
  });

  it("still drops the caption and credit of a figure with an image", () => {
    const t = text(
      story(
        `<figure class="wp-block-image"><img src="/chart.png" alt=""><div class="credit">Image Credit: Example Research</div></figure>`,
      ),
    );
    expect(t).toContain("how the market works");
    expect(t).not.toContain("Image Credit");
  });
});
