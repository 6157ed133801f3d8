import { describe, expect, it } from "vitest";
import { extractMainText } from "../../../functions/extract/extract.ts";
import { para } from "./pages.ts";

const text = (html: string, url = "https://cloud.example.com/learn/what-is-cloud") => extractMainText(html, url).text;

describe("page headers larger than the page", () => {
  // A mega menu outside any <nav>: every entry a link holding a name and a line describing it,
  // more text than the page itself.
  const groups = ["Compute", "Storage", "Databases", "Networking", "Security", "Analytics"];
  const megaMenu = groups
    .map(
      (g) =>
        `<div class="col"><span class="head">${g}</span><ul>${Array.from({ length: 6 }, (_, i) => `<li><a href="/${g.toLowerCase()}/${i + 1}"><span class="name">${g} product ${i + 1}</span><span class="desc">Managed ${g.toLowerCase()} service for teams of every size, run on our global network.</span></a></li>`).join("")}</ul></div>`,
    )
    .join("");

  it("drops the page's <header> holding a described mega menu and no heading of the page", () => {
    const html = `<html><body><header class="top"><a href="/">Example Cloud</a><div class="menus">${megaMenu}</div></header><div class="page"><h1>What is cloud computing?</h1>${para("cloud", 4)}${para("server", 4)}</div></body></html>`;
    const t = text(html);
    expect(t).toContain("how the cloud works");
    expect(t).not.toContain("Storage product 3");
  });

  it("keeps a <header> whose paragraphs are the page's introduction", () => {
    const html = `<html><body><header class="intro"><h2>Cloud computing, explained</h2>${para("cloud", 6)}${para("region", 6)}</header><div class="more"><h3>Next steps</h3><ul><li><a href="/a">Start free</a></li><li><a href="/b">Contact sales</a></li></ul></div></body></html>`;
    const t = text(html);
    expect(t).toContain("how the cloud works");
    expect(t).toContain("how the region works");
  });
});
