import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://shop.example.com/p/open-headphones") => extractMainText(html, url).text;
const PRODUCT_LD = `<script type="application/ld+json">{"@type":"Product","name":"Open Headphones"}</script>`;
const gloss = "Open-back designs leak sound and let outside noise in, but sound wider.";

describe("tooltips: text shown on hover, beside the label it explains", () => {
  const spec = (label: string, tip: string, value: string) =>
    `<div class="overview-item"><h4 class="overview-item__title">${label}${tip}</h4><p>${value}</p></div>`;
  const page = (tip: string) => `<html><head>${PRODUCT_LD}</head><body><main><div class="product">
    <h1>Open Headphones</h1><div class="price">$799.00</div>${para("driver", 3)}
    <div class="overview">${spec("Form factor", tip, "Over-ear, open-back")}${spec("Driver", "", "Planar magnetic")}</div>
    </div></main></body></html>`;

  it("drops a tooltip's content (class 'tool-tip__content', or role=tooltip), keeps the label and value", () => {
    for (const tip of [
      `<tool-tip class="tool-tip"><div class="tool-tip__content">${gloss}</div></tool-tip>`,
      `<span class="hint" role="tooltip">${gloss}</span>`,
    ]) {
      const t = text(page(tip));
      for (const want of ["Form factor", "Over-ear, open-back", "Planar magnetic", "how the driver works"])
        expect(t).toContain(want);
      expect(t).not.toContain("leak sound");
    }
  });

  it("keeps a tooltip's trigger and text whose class only mentions a tooltip ('group/tooltip', 'has-tooltip')", () => {
    const article = `<html><head><meta property="og:type" content="article"></head><body><main><article><h1>Planar drivers</h1>
      ${para("magnet", 3)}<p>They sound <span class="relative inline-flex group/tooltip underline">wide and open</span>, as reviewers say.</p>
      <div class="has-tooltip"><p>Open-back designs leak sound and let outside noise in, but they sound wider than closed ones do.</p></div>
      </article></main></body></html>`;
    const t = text(article, "https://news.example.com/planar-drivers");
    expect(t).toContain("wide and open");
    expect(t).toContain("leak sound");
  });
});
